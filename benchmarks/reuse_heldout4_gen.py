# ruff: noqa: E501, RUF001  (one hand-written item a line, in six languages: the data reads best as typed)
"""Build ``benchmarks/reuse_heldout4.jsonl``: the fourth held-out set of reuse by meaning.

Method (also in ``benchmarks/RESULTS.md``, "held-out set #4"), fixed and committed before
the decision of issue #34's fourth round was changed and before any evaluation on it:

- 100 hand-written base requests: 80 in English, 10 in each of 8 domains none of the earlier
  sets covers (museums and galleries, hotels and lodging, video games, streaming TV, cycling,
  restaurants and dining out, waste and recycling, government services); 20 (leisure and
  paperwork) not in English, 4 each in French, Italian, Portuguese, Korean and Polish (20%),
  languages none of sets #1-#3 used for its non-English items.
- Each gives one should-reuse pair (a hand-written paraphrase with several words changed: other
  verbs and nouns, word order, number words for digits, "half an hour" for "30 minutes", fronted
  clauses, passives; same meaning, same answer) and three must-not pairs (a variant changing one
  element, or two for "two_edits": two entities, an entity and a comparative, a measure and an
  entity, an added constraint and an entity).
- The kinds follow the same fixed cycle of twelve as set #3: item i's variants are kinds
  ``CYCLE[(3i + j) % 12]``, j = 0, 1, 2, so 25 must-not pairs of each kind. Numbers are written
  as digits, number words, full-width and Arabic-Indic digits.
- 100 should-reuse and 300 must-not pairs, rendered like the other sets (the same system prompt,
  one human message): same record format, same ``request()`` and writer as set #1.

Run ``python -m benchmarks.reuse_heldout4_gen``.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.reuse_heldout_gen import request, write

OUT = Path(__file__).with_name("reuse_heldout4.jsonl")
# Item i's three must-not variants are of kinds CYCLE[(3i + j) % 12], j = 0, 1, 2: items
# i = 0, 1, 2, 3 (mod 4) change (tense, quantifier, constraint), (negation, number, date),
# (entity, direction, unit), (format, comparative, two_edits).
CYCLE = (
    "tense", "quantifier", "constraint", "negation", "number", "date",
    "entity", "direction", "unit", "format", "comparative", "two_edits",
)  # fmt: skip
DOMAINS = (
    "museums", "hotels", "video_games", "streaming_tv", "cycling", "dining_out",
    "waste_recycling", "government_services",
)  # fmt: skip

# (language, request, paraphrase, variant 1, variant 2, variant 3), ten a domain.
ITEMS: list[tuple[str, str, str, str, str, str]] = [
    # museums and galleries
    ("en", "Is the Louvre's Egyptian wing open today?", "Can visitors get into the Egyptian wing of the Louvre today?", "Will the Louvre's Egyptian wing be open today?", "Are all of the Louvre's wings open today?", "Is the Louvre's Egyptian wing open today for wheelchair users?"),
    ("en", "Buy 3 adult tickets for the Van Gogh Museum on July 9.", "Get me three adult admissions to the Van Gogh Museum for the 9th of July.", "Don't buy 3 adult tickets for the Van Gogh Museum on July 9.", "Buy 8 adult tickets for the Van Gogh Museum on July 9.", "Buy 3 adult tickets for the Van Gogh Museum on August 9."),
    ("en", "Move the Rothko canvas 40 centimeters toward the window.", "Shift the Rothko painting forty centimeters closer to the window.", "Move the Pollock canvas 40 centimeters toward the window.", "Move the Rothko canvas 40 centimeters away from the window.", "Move the Rothko canvas 40 inches toward the window."),
    ("en", "Is the Prado bigger than the Uffizi? Reply as a short list of facts.", "Reply as a short list of facts: does the Prado have more floor space than the Uffizi?", "Is the Prado bigger than the Uffizi? Reply with just yes or no.", "Is the Prado smaller than the Uffizi? Reply as a short list of facts.", "Is the Tate bigger than the Rijksmuseum? Reply as a short list of facts."),
    ("en", "Has the Monet exhibition opened?", "Is the Monet show open to the public yet?", "Will the Monet exhibition open?", "Have all the Monet exhibitions opened?", "Has the Monet exhibition opened in the east wing?"),
    ("en", "Book a guided tour for 12 students at the science museum on May 2.", "Reserve a guided visit at the science museum for twelve students on 2 May.", "Do not book a guided tour for 12 students at the science museum on May 2.", "Book a guided tour for 21 students at the science museum on May 2.", "Book a guided tour for 12 students at the science museum on June 2."),
    ("en", "Lend the Vermeer sketch from our collection to the Mauritshuis for 6 months.", "Loan our collection's Vermeer sketch to the Mauritshuis for six months.", "Lend the Vermeer sketch from our collection to the Rijksmuseum for 6 months.", "Borrow the Vermeer sketch from the Mauritshuis for our collection for 6 months.", "Lend the Vermeer sketch from our collection to the Mauritshuis for 6 weeks."),
    ("en", "Which gets more visitors per year, MoMA or the Guggenheim? Give the numbers in a table.", "Give the numbers in a table: does MoMA or the Guggenheim draw more yearly visitors?", "Which gets more visitors per year, MoMA or the Guggenheim? Answer in one word.", "Which gets fewer visitors per year, MoMA or the Guggenheim? Give the numbers in a table.", "Which gets more visitors per month, the Whitney or the Guggenheim? Give the numbers in a table."),
    ("en", "Is the sculpture garden closed for renovation?", "Is the sculpture garden shut because of renovation work?", "Was the sculpture garden closed for renovation?", "Are both sculpture gardens closed for renovation?", "Is the sculpture garden closed for renovation until spring?"),
    ("en", "Print 200 catalogues for the Klimt show by March 18.", "Have two hundred Klimt show catalogues printed by 18 March.", "Don't print 200 catalogues for the Klimt show by March 18.", "Print ２５０ catalogues for the Klimt show by March 18.", "Print 200 catalogues for the Klimt show by March 28."),
    # hotels and lodging
    ("en", "Is the hotel pool heated?", "Is the pool at the hotel kept warm?", "Was the hotel pool heated?", "Are all the hotel pools heated?", "Is the hotel pool heated in winter?"),
    ("en", "Add 2 extra towels to room 514 tonight.", "Bring two more towels up to room 514 this evening.", "Don't add 2 extra towels to room 514 tonight.", "Add 2 extra towels to room 541 tonight.", "Add 2 extra towels to room 514 tomorrow night."),
    ("en", "Extend Mr. Okafor's stay in the suite by 2 nights.", "Add two more nights to Mr. Okafor's suite stay.", "Extend Ms. Lindqvist's stay in the suite by 2 nights.", "Shorten Mr. Okafor's stay in the suite by 2 nights.", "Extend Mr. Okafor's stay in the suite by 2 weeks."),
    ("en", "Compare breakfast at the Ritz and the Savoy: which is pricier? Keep it to one line.", "In a single line, tell me whether breakfast costs more at the Ritz or the Savoy.", "Compare breakfast at the Ritz and the Savoy: which is pricier? Lay it out as a table with prices.", "Compare breakfast at the Ritz and the Savoy: which is cheaper? Keep it to one line.", "Compare dinner at the Ritz and the Dorchester: which is pricier? Keep it to one line."),
    ("en", "Has the guest in room 208 checked out?", "Is the room 208 guest already checked out?", "Will the guest in room 208 check out?", "Have both guests in room 208 checked out?", "Has the guest in room 208 checked out and paid the minibar bill?"),
    ("en", "Reserve a table for 5 at the hotel restaurant for 8 pm on Saturday.", "Book the hotel restaurant for five people at 8 pm this Saturday.", "Don't reserve a table for 5 at the hotel restaurant for 8 pm on Saturday.", "Reserve a table for 5 at the hotel restaurant for 9 pm on Saturday.", "Reserve a table for 5 at the hotel restaurant for 8 pm on Sunday."),
    ("en", "Turn the air conditioning in the Aurora suite down by 2 degrees Celsius.", "Lower the Aurora suite's air conditioning by two degrees Celsius.", "Turn the air conditioning in the Borealis suite down by 2 degrees Celsius.", "Turn the air conditioning in the Aurora suite up by 2 degrees Celsius.", "Turn the air conditioning in the Aurora suite down by 2 degrees Fahrenheit."),
    ("en", "Is a junior suite roomier than a deluxe room? Explain in two sentences.", "In two sentences, explain whether a junior suite offers more space than a deluxe room.", "Is a junior suite roomier than a deluxe room? Put the sizes in a table.", "Is a junior suite smaller than a deluxe room? Explain in two sentences.", "Is a junior suite quieter than a family room? Explain in two sentences."),
    ("en", "Is late checkout available for my booking?", "Can I get a late checkout on my reservation?", "Was late checkout available for my booking?", "Is late checkout available for all my bookings?", "Is late checkout available for my booking without a fee?"),
    ("en", "Schedule the airport shuttle for 4 guests at 6:15 on October 21.", "Book the airport shuttle at 6:15 on 21 October for four guests.", "Don't schedule the airport shuttle for 4 guests at 6:15 on October 21.", "Schedule the airport shuttle for 7 guests at 6:15 on October 21.", "Schedule the airport shuttle for 4 guests at 6:15 on October 12."),
    # video games
    ("en", "Is the Elden Ring server down?", "Is the Elden Ring game server offline?", "Was the Elden Ring server down?", "Are all the Elden Ring servers down?", "Is the Elden Ring server down in Europe?"),
    ("en", "Give my character 500 gold coins before Friday's raid.", "Before the raid on Friday, add five hundred gold coins to my character.", "Don't give my character 500 gold coins before Friday's raid.", "Give my character 5000 gold coins before Friday's raid.", "Give my character 500 gold coins before Saturday's raid."),
    ("en", "Increase the mouse sensitivity in Valorant by 10 percent.", "Make the Valorant mouse sensitivity ten percent higher.", "Increase the mouse sensitivity in Overwatch by 10 percent.", "Decrease the mouse sensitivity in Valorant by 10 percent.", "Increase the mouse sensitivity in Valorant by 10 points."),
    ("en", "Is the PS5 faster than the Xbox Series X at loading games? Give me a table of load times.", "Give me a table of load times: does the PS5 load games quicker than the Xbox Series X?", "Is the PS5 faster than the Xbox Series X at loading games? Just say yes or no.", "Is the PS5 slower than the Xbox Series X at loading games? Give me a table of load times.", "Is the Switch faster than the Steam Deck at loading games? Give me a table of load times."),
    ("en", "Has the new Zelda patch been released?", "Is the latest Zelda patch out yet?", "Will the new Zelda patch be released?", "Have all the new Zelda patches been released?", "Has the new Zelda patch been released for the Japanese version?"),
    ("en", "Schedule a Minecraft server backup for 3 am on December 5.", "Set up a backup of the Minecraft server at 3 am on 5 December.", "Don't schedule a Minecraft server backup for 3 am on December 5.", "Schedule a Minecraft server backup for 4 am on December 5.", "Schedule a Minecraft server backup for 3 am on November 5."),
    ("en", "Move the Fortnite tournament 2 hours earlier.", "Start the Fortnite tournament two hours sooner.", "Move the Apex tournament 2 hours earlier.", "Move the Fortnite tournament 2 hours later.", "Move the Fortnite tournament 2 days earlier."),
    ("en", "Which sold more copies, Tetris or Minecraft? Answer in one sentence.", "In one sentence: did Tetris or Minecraft sell more copies?", "Which sold more copies, Tetris or Minecraft? Answer with a sales table by year.", "Which sold fewer copies, Tetris or Minecraft? Answer in one sentence.", "Which sold more copies, GTA V or Pokémon Red? Answer in one sentence."),
    ("en", "Is my Nintendo Online subscription active?", "Is the Nintendo Online membership on my account still running?", "Was my Nintendo Online subscription active?", "Are all my Nintendo Online subscriptions active?", "Is my Nintendo Online subscription active with the expansion pack?"),
    ("en", "Refund 60 dollars for the Starfield preorder by August 31.", "Give back the sixty dollars for the Starfield preorder by August 31.", "Don't refund 60 dollars for the Starfield preorder by August 31.", "Refund ٧٠ dollars for the Starfield preorder by August 31.", "Refund 60 dollars for the Starfield preorder by July 31."),
    # streaming TV
    ("en", "Is the new season of The Crown streaming on Netflix?", "Can I watch The Crown's latest season on Netflix?", "Will the new season of The Crown stream on Netflix?", "Are all seasons of The Crown streaming on Netflix?", "Is the new season of The Crown streaming on Netflix with German subtitles?"),
    ("en", "Record 4 episodes of the cooking show on Thursday.", "Set the recorder to tape four cooking show episodes on Thursday.", "Don't record 4 episodes of the cooking show on Thursday.", "Record fourteen episodes of the cooking show on Thursday.", "Record 4 episodes of the cooking show on Wednesday."),
    ("en", "Skip ahead 90 seconds in the Severance episode on the Apple TV.", "Jump forward ninety seconds in the Severance episode on Apple TV.", "Skip ahead 90 seconds in the Succession episode on the Apple TV.", "Skip back 90 seconds in the Severance episode on the Apple TV.", "Skip ahead 90 minutes in the Severance episode on the Apple TV."),
    ("en", "Is Stranger Things longer than Dark? Show the runtimes as a list.", "Show the runtimes as a list: does Stranger Things run longer than Dark?", "Is Stranger Things longer than Dark? Answer in a single sentence.", "Is Stranger Things shorter than Dark? Show the runtimes as a list.", "Is Breaking Bad longer than Ozark? Show the runtimes as a list."),
    ("en", "Has my Netflix plan been renewed?", "Is my Netflix plan renewed yet?", "Will my Netflix plan be renewed?", "Have both of my Netflix plans been renewed?", "Has my Netflix plan been renewed at the old price?"),
    ("en", "Pause my Peacock subscription for 2 months starting June 1.", "Put my Peacock subscription on hold for two months from June 1.", "Don't pause my Peacock subscription for 2 months starting June 1.", "Pause my Peacock subscription for 3 months starting June 1.", "Pause my Peacock subscription for 2 months starting July 1."),
    ("en", "Delay the subtitles on the living room TV by 300 milliseconds.", "Shift the living room TV subtitles 300 milliseconds later.", "Delay the subtitles on the bedroom TV by 300 milliseconds.", "Advance the subtitles on the living room TV by 300 milliseconds.", "Delay the subtitles on the living room TV by 300 seconds."),
    ("en", "Which has more subscribers, Netflix or Disney+? Give the figures as bullet points.", "As bullet points with figures: does Netflix or Disney+ have more subscribers?", "Which has more subscribers, Netflix or Disney+? Answer in a sentence with no numbers.", "Which has fewer subscribers, Netflix or Disney+? Give the figures as bullet points.", "Which has more subscribers in Brazil, Netflix or Prime Video? Give the figures as bullet points."),
    ("en", "Is the live stream of the final buffering?", "Is the live broadcast of the final lagging?", "Was the live stream of the final buffering?", "Are all the live streams of the final buffering?", "Is the live stream of the final buffering on mobile?"),
    ("en", "Download 6 episodes of Bluey for the flight on April 27.", "Save six Bluey episodes offline for the April 27 flight.", "Don't download 6 episodes of Bluey for the flight on April 27.", "Download 16 episodes of Bluey for the flight on April 27.", "Download 6 episodes of Bluey for the flight on April 7."),
    # cycling
    ("en", "Is the bike lane on Main Street open?", "Can cyclists use the Main Street bike lane?", "Will the bike lane on Main Street be open?", "Are all the bike lanes on Main Street open?", "Is the bike lane on Main Street open at night?"),
    ("en", "Order 2 inner tubes for my road bike by September 9.", "Get two inner tubes for the road bike ordered by 9 September.", "Don't order 2 inner tubes for my road bike by September 9.", "Order twenty inner tubes for my road bike by September 9.", "Order 2 inner tubes for my road bike by October 9."),
    ("en", "Raise the saddle on Ines's bike by 15 millimeters.", "Put the seat on Ines's bike fifteen millimeters higher.", "Raise the saddle on Tomas's bike by 15 millimeters.", "Lower the saddle on Ines's bike by 15 millimeters.", "Raise the saddle on Ines's bike by 15 centimeters."),
    ("en", "Is carbon stiffer than aluminum for a bike frame? Give a pros and cons list.", "Give a pros and cons list: for a bike frame, is carbon stiffer than aluminum?", "Is carbon stiffer than aluminum for a bike frame? Answer with a single word.", "Is carbon more flexible than aluminum for a bike frame? Give a pros and cons list.", "Is steel stiffer than titanium for a bike frame? Give a pros and cons list."),
    ("en", "Has stage 12 of the Tour de France finished?", "Is the Tour de France's twelfth stage over?", "Will stage 12 of the Tour de France finish?", "Have all the stages of the Tour de France finished?", "Has stage 12 of the Tour de France finished in a sprint?"),
    ("en", "Rent 3 e-bikes for the group ride on June 6.", "Hire three electric bikes for the June 6 group ride.", "Don't rent 3 e-bikes for the group ride on June 6.", "Rent 5 e-bikes for the group ride on June 6.", "Rent 3 e-bikes for the group ride on June 8."),
    ("en", "Add 10 psi to the front tire of the Trek.", "Pump the Trek's front tire up by ten psi.", "Add 10 psi to the front tire of the Specialized.", "Let 10 psi out of the front tire of the Trek.", "Add 10 bar to the front tire of the Trek."),
    ("en", "Is the Alpe d'Huez climb steeper than Mont Ventoux? Answer in a short paragraph.", "In a short paragraph: is the climb up Alpe d'Huez steeper than Mont Ventoux?", "Is the Alpe d'Huez climb steeper than Mont Ventoux? Answer with a gradient table.", "Is the Alpe d'Huez climb gentler than Mont Ventoux? Answer in a short paragraph.", "Is the Stelvio climb longer than Mont Ventoux? Answer in a short paragraph."),
    ("en", "Is the bike shop on Elm Street still open?", "Is the Elm Street bicycle shop open at this hour?", "Was the bike shop on Elm Street still open?", "Are all the bike shops on Elm Street still open?", "Is the bike shop on Elm Street still open for repairs?"),
    ("en", "Log a 45 kilometer ride for me on August 2.", "Record a forty-five kilometer ride on August 2 in my log.", "Don't log a 45 kilometer ride for me on August 2.", "Log a 54 kilometer ride for me on August 2.", "Log a 45 kilometer ride for me on August 20."),
    # restaurants and dining out
    ("en", "Is the sushi place on 5th Avenue busy?", "Is it crowded at the 5th Avenue sushi restaurant?", "Was the sushi place on 5th Avenue busy?", "Are all the sushi places on 5th Avenue busy?", "Is the sushi place on 5th Avenue busy at lunchtime?"),
    ("en", "Book the private dining room for 14 guests on February 22.", "Reserve the private dining room on 22 February for fourteen people.", "Don't book the private dining room for 14 guests on February 22.", "Book the private dining room for 40 guests on February 22.", "Book the private dining room for 14 guests on March 22."),
    ("en", "Increase the reservation for the Chen party by 2 people.", "Add two people to the Chen party's reservation.", "Increase the reservation for the Novak party by 2 people.", "Reduce the reservation for the Chen party by 2 people.", "Increase the reservation for the Chen party by 2 tables."),
    ("en", "Is the tasting menu pricier than the à la carte dinner? Answer in one sentence.", "In one sentence, does the tasting menu cost more than dinner à la carte?", "Is the tasting menu pricier than the à la carte dinner? Break it down in a table.", "Is the tasting menu cheaper than the à la carte dinner? Answer in one sentence.", "Is the lunch menu pricier than the à la carte brunch? Answer in one sentence."),
    ("en", "Has our food order been picked up by the courier?", "Did the courier collect our food order yet?", "Will our food order be picked up by the courier?", "Have all our food orders been picked up by the courier?", "Has our food order been picked up by the courier with the drinks?"),
    ("en", "Order 3 vegan pizzas for delivery at 7:30 pm on Friday.", "Get three vegan pizzas delivered Friday at 7:30 pm.", "Don't order 3 vegan pizzas for delivery at 7:30 pm on Friday.", "Order 8 vegan pizzas for delivery at 7:30 pm on Friday.", "Order 3 vegan pizzas for delivery at 7:30 pm on Thursday."),
    ("en", "Move the Hendersons' table one meter closer to the stage.", "Shift the Hendersons' table a meter toward the stage.", "Move the Okonkwos' table one meter closer to the stage.", "Move the Hendersons' table one meter farther from the stage.", "Move the Hendersons' table one foot closer to the stage."),
    ("en", "Which is spicier, Thai green curry or Indian vindaloo? Answer with a ranked list.", "With a ranked list: is Thai green curry or Indian vindaloo hotter?", "Which is spicier, Thai green curry or Indian vindaloo? Answer in one word.", "Which is milder, Thai green curry or Indian vindaloo? Answer with a ranked list.", "Which is spicier, Korean kimchi stew or Mexican mole? Answer with a ranked list."),
    ("en", "Is the kitchen still taking orders?", "Can we still order food from the kitchen?", "Was the kitchen still taking orders?", "Are all the kitchens still taking orders?", "Is the kitchen still taking orders for dessert?"),
    ("en", "Charge 85 dollars to the card ending 4421 for the catering on May 3.", "Bill the card ending in 4421 eighty-five dollars for the May 3 catering.", "Don't charge 85 dollars to the card ending 4421 for the catering on May 3.", "Charge 58 dollars to the card ending 4421 for the catering on May 3.", "Charge 85 dollars to the card ending 4421 for the catering on June 3."),
    # waste and recycling
    ("en", "Is glass recycling collected on my street?", "Does the glass recycling truck pick up on my street?", "Was glass recycling collected on my street?", "Is glass recycling collected on every street?", "Is glass recycling collected on my street on holidays?"),
    ("en", "Request 2 extra compost bins for the school on March 12.", "Ask for two more compost bins for the school on 12 March.", "Don't request 2 extra compost bins for the school on March 12.", "Request 6 extra compost bins for the school on March 12.", "Request 2 extra compost bins for the school on April 12."),
    ("en", "Move the blue bins 3 meters to the left of the gate.", "Put the blue bins three meters further left of the gate.", "Move the green bins 3 meters to the left of the gate.", "Move the blue bins 3 meters to the right of the gate.", "Move the blue bins 3 feet to the left of the gate."),
    ("en", "Is paper easier to recycle than plastic? Explain as numbered points.", "As numbered points, explain whether paper is simpler to recycle than plastic.", "Is paper easier to recycle than plastic? Answer in one word.", "Is paper harder to recycle than plastic? Explain as numbered points.", "Is aluminum easier to recycle than glass? Explain as numbered points."),
    ("en", "Has the bulky waste pickup been scheduled?", "Is there a date set for the bulky waste collection?", "Will the bulky waste pickup be scheduled?", "Have all the bulky waste pickups been scheduled?", "Has the bulky waste pickup been scheduled for the old sofa?"),
    ("en", "Drop off 4 bags of electronics at the recycling center on Saturday.", "Take four bags of electronics to the recycling center this Saturday.", "Don't drop off 4 bags of electronics at the recycling center on Saturday.", "Drop off 40 bags of electronics at the recycling center on Saturday.", "Drop off 4 bags of electronics at the recycling center on Monday."),
    ("en", "Increase trash pickup at the Oak Street building by 1 day a week.", "Add one more weekly trash pickup day at the Oak Street building.", "Increase trash pickup at the Maple Street building by 1 day a week.", "Reduce trash pickup at the Oak Street building by 1 day a week.", "Increase trash pickup at the Oak Street building by 1 day a month."),
    ("en", "Which produces more methane, landfills or cattle? Answer in a paragraph.", "In a paragraph, say whether landfills or cattle emit more methane.", "Which produces more methane, landfills or cattle? Give me just the numbers in a table.", "Which produces less methane, landfills or cattle? Answer in a paragraph.", "Which produces more CO2, landfills or rice paddies? Answer in a paragraph."),
    ("en", "Is the recycling center open on Sundays?", "Can I visit the recycling depot on a Sunday?", "Will the recycling center be open on Sundays?", "Are all the recycling centers open on Sundays?", "Is the recycling center open on Sundays for hazardous waste?"),
    ("en", "Send 150 recycling flyers to the Birchwood neighborhood by July 15.", "Mail one hundred and fifty recycling flyers to Birchwood by July 15.", "Don't send 150 recycling flyers to the Birchwood neighborhood by July 15.", "Send １５ recycling flyers to the Birchwood neighborhood by July 15.", "Send 150 recycling flyers to the Birchwood neighborhood by July 5."),
    # government services
    ("en", "Is my passport renewal application being processed?", "Is the application to renew my passport in progress?", "Was my passport renewal application processed?", "Are all my family's passport renewal applications being processed?", "Is my passport renewal application being processed on the fast track?"),
    ("en", "Book 1 appointment at the DMV for my driving test on November 20.", "Schedule my driving test at the DMV, one appointment, on 20 November.", "Don't book 1 appointment at the DMV for my driving test on November 20.", "Book 2 appointments at the DMV for my driving test on November 20.", "Book 1 appointment at the DMV for my driving test on November 2."),
    ("en", "Extend Maria's residence permit by 12 months.", "Prolong Maria's residence permit for another twelve months.", "Extend Pedro's residence permit by 12 months.", "Shorten Maria's residence permit by 12 months.", "Extend Maria's residence permit by 12 weeks."),
    ("en", "Is the income tax deadline later than the property tax deadline? Give both dates in a table.", "Give both dates in a table: does the income tax deadline fall after the property tax deadline?", "Is the income tax deadline later than the property tax deadline? Just answer yes or no.", "Is the income tax deadline earlier than the property tax deadline? Give both dates in a table.", "Is the sales tax deadline later than the vehicle tax deadline? Give both dates in a table."),
    ("en", "Has my building permit been approved?", "Did the city approve my building permit yet?", "Will my building permit be approved?", "Have all my building permits been approved?", "Has my building permit been approved for the second floor?"),
    ("en", "Pay the 40 dollar parking fine before June 30.", "Settle the forty-dollar parking ticket ahead of June 30.", "Don't pay the 40 dollar parking fine before June 30.", "Pay the 60 dollar parking fine before June 30.", "Pay the 40 dollar parking fine before May 30."),
    ("en", "Raise the property tax estimate for the Gomez house by 5 percent.", "Increase the Gomez house's property tax estimate five percent.", "Raise the property tax estimate for the Ivanova house by 5 percent.", "Lower the property tax estimate for the Gomez house by 5 percent.", "Raise the property tax estimate for the Gomez house by 5 dollars."),
    ("en", "Is a national ID card faster to get than a passport? Reply in two sentences.", "Reply in two sentences: can you get a national ID card quicker than a passport?", "Is a national ID card faster to get than a passport? Reply with a table of waiting times.", "Is a national ID card slower to get than a passport? Reply in two sentences.", "Is a driver's license cheaper to get than a passport? Reply in two sentences."),
    ("en", "Is the city hall office open today?", "Can I go to the city hall office today?", "Was the city hall office open today?", "Are all the city hall offices open today?", "Is the city hall office open today after 5 pm?"),
    ("en", "Submit 3 copies of the birth certificate by January 15.", "Hand in three copies of the birth certificate by 15 January.", "Don't submit 3 copies of the birth certificate by January 15.", "Submit 7 copies of the birth certificate by January 15.", "Submit 3 copies of the birth certificate by January 25."),
    # leisure and paperwork, French
    ("fr", "Le musée d'Orsay est-il ouvert ce soir ?", "Peut-on visiter le musée d'Orsay ce soir ?", "Le musée d'Orsay sera-t-il ouvert ce soir ?", "Toutes les salles du musée d'Orsay sont-elles ouvertes ce soir ?", "Le musée d'Orsay est-il ouvert ce soir pour les groupes scolaires ?"),
    ("fr", "Réserve 2 chambres à l'hôtel pour le 14 juillet.", "Fais une réservation de deux chambres d'hôtel pour le 14 juillet.", "Ne réserve pas 2 chambres à l'hôtel pour le 14 juillet.", "Réserve 4 chambres à l'hôtel pour le 14 juillet.", "Réserve 2 chambres à l'hôtel pour le 14 août."),
    ("fr", "Vire 100 euros du compte de Claire vers le compte de Hugo.", "Transfère cent euros depuis le compte de Claire sur celui de Hugo.", "Vire 100 euros du compte de Claire vers le compte de Léa.", "Vire 100 euros du compte de Hugo vers le compte de Claire.", "Vire 100 francs suisses du compte de Claire vers le compte de Hugo."),
    ("fr", "Le vélo est-il plus rapide que le métro pour aller au bureau ? Réponds en une phrase.", "Réponds en une phrase : va-t-on plus vite au bureau à vélo qu'en métro ?", "Le vélo est-il plus rapide que le métro pour aller au bureau ? Réponds avec un tableau des temps de trajet.", "Le vélo est-il plus lent que le métro pour aller au bureau ? Réponds en une phrase.", "La trottinette est-elle plus rapide que le bus pour aller au bureau ? Réponds en une phrase."),
    # Italian
    ("it", "Il parcheggio della stazione è pieno?", "È completo il parcheggio della stazione?", "Il parcheggio della stazione era pieno?", "Tutti i parcheggi della stazione sono pieni?", "Il parcheggio della stazione è pieno anche di domenica?"),
    ("it", "Prenota 2 biglietti per il concerto del 9 settembre.", "Compra due biglietti per il concerto del 9 settembre.", "Non prenotare 2 biglietti per il concerto del 9 settembre.", "Prenota 5 biglietti per il concerto del 9 settembre.", "Prenota 2 biglietti per il concerto del 9 ottobre."),
    ("it", "Sposta la riunione con Giulia di 30 minuti più tardi.", "Posticipa di mezz'ora la riunione con Giulia.", "Sposta la riunione con Marco di 30 minuti più tardi.", "Sposta la riunione con Giulia di 30 minuti prima.", "Sposta la riunione con Giulia di 30 giorni più tardi."),
    ("it", "Il treno per Firenze costa meno dell'autobus? Rispondi con un elenco puntato.", "Rispondi con un elenco puntato: per Firenze il treno è più economico dell'autobus?", "Il treno per Firenze costa meno dell'autobus? Rispondi con una sola parola.", "Il treno per Firenze costa più dell'autobus? Rispondi con un elenco puntato.", "Il traghetto per Napoli costa meno dell'autobus? Rispondi con un elenco puntato."),
    # Portuguese
    ("pt", "O ginásio do bairro está aberto agora?", "A academia do bairro está funcionando agora?", "O ginásio do bairro estava aberto?", "Todos os ginásios do bairro estão abertos agora?", "O ginásio do bairro está aberto agora para não sócios?"),
    ("pt", "Marque 3 consultas no dentista para o dia 10 de março.", "Agende três consultas no dentista em 10 de março.", "Não marque 3 consultas no dentista para o dia 10 de março.", "Marque 2 consultas no dentista para o dia 10 de março.", "Marque 3 consultas no dentista para o dia 10 de abril."),
    ("pt", "Transfira 500 reais da conta da Ana para a conta do Bruno.", "Passe quinhentos reais da conta da Ana para a do Bruno.", "Transfira 500 reais da conta da Ana para a conta do Carlos.", "Transfira 500 reais da conta do Bruno para a conta da Ana.", "Transfira 500 dólares da conta da Ana para a conta do Bruno."),
    ("pt", "O metrô é mais barato que o ônibus em São Paulo? Responda em uma frase.", "Responda em uma frase: em São Paulo, andar de metrô custa menos que de ônibus?", "O metrô é mais barato que o ônibus em São Paulo? Responda com uma tabela de preços.", "O metrô é mais caro que o ônibus em São Paulo? Responda em uma frase.", "O trem é mais barato que o ônibus no Rio de Janeiro? Responda em uma frase."),
    # Korean
    ("ko", "지금 동네 수영장이 열려 있나요?", "동네 수영장 지금 운영하나요?", "동네 수영장이 열려 있었나요?", "지금 동네 수영장이 모두 열려 있나요?", "지금 동네 수영장이 성인에게도 열려 있나요?"),
    ("ko", "4월 3일에 영화표 2장을 예매해 주세요.", "영화표 두 장을 4월 3일로 예약해 주세요.", "4월 3일에 영화표 2장을 예매하지 마세요.", "4월 3일에 영화표 5장을 예매해 주세요.", "4월 13일에 영화표 2장을 예매해 주세요."),
    ("ko", "제 계좌에서 민수 씨에게 5만 원을 보내 주세요.", "민수 씨한테 제 계좌로부터 5만 원 송금해 주세요.", "제 계좌에서 지영 씨에게 5만 원을 보내 주세요.", "민수 씨 계좌에서 저에게 5만 원을 보내 주세요.", "제 계좌에서 민수 씨에게 5만 달러를 보내 주세요."),
    ("ko", "KTX가 버스보다 빠른가요? 한 문장으로 답해 주세요.", "한 문장으로 답해 주세요: KTX를 타면 버스보다 빨리 가나요?", "KTX가 버스보다 빠른가요? 표로 답해 주세요.", "KTX가 버스보다 느린가요? 한 문장으로 답해 주세요.", "지하철이 택시보다 빠른가요? 한 문장으로 답해 주세요."),
    # Polish
    ("pl", "Czy basen miejski jest dziś otwarty?", "Czy miejski basen działa dzisiaj?", "Czy basen miejski był dziś otwarty?", "Czy wszystkie baseny miejskie są dziś otwarte?", "Czy basen miejski jest dziś otwarty dla dzieci?"),
    ("pl", "Zarezerwuj stolik dla 6 osób na 8 maja.", "Zrób rezerwację stolika na sześć osób na 8 maja.", "Nie rezerwuj stolika dla 6 osób na 8 maja.", "Zarezerwuj stolik dla 9 osób na 8 maja.", "Zarezerwuj stolik dla 6 osób na 8 czerwca."),
    ("pl", "Przelej 200 złotych z mojego konta na konto Kasi.", "Wyślij Kasi dwieście złotych z mojego rachunku.", "Przelej 200 złotych z mojego konta na konto Tomka.", "Przelej 200 złotych z konta Kasi na moje konto.", "Przelej 200 euro z mojego konta na konto Kasi."),
    ("pl", "Czy pociąg do Krakowa jest szybszy niż samochód? Odpowiedz jednym zdaniem.", "Odpowiedz jednym zdaniem: czy do Krakowa szybciej dojadę pociągiem niż samochodem?", "Czy pociąg do Krakowa jest szybszy niż samochód? Odpowiedz tabelą z czasami podróży.", "Czy pociąg do Krakowa jest wolniejszy niż samochód? Odpowiedz jednym zdaniem.", "Czy autobus do Gdańska jest szybszy niż samochód? Odpowiedz jednym zdaniem."),
]  # fmt: skip


def pairs() -> list[dict[str, object]]:
    """The 400 pairs, in a fixed order."""
    assert len(ITEMS) == 100, len(ITEMS)
    out: list[dict[str, object]] = []
    for i, (lang, a, para, *variants) in enumerate(ITEMS):
        domain = DOMAINS[i // 10] if lang == "en" else "leisure_paperwork"
        base = {"lang": lang, "domain": domain}
        out.append({"id": f"f{i}-reuse", "label": "reuse", "kind": "paraphrase", **base,
                    "a": request(a), "b": request(para)})  # fmt: skip
        for j, variant in enumerate(variants):
            kind = CYCLE[(3 * i + j) % 12]
            out.append({"id": f"f{i}-{kind}", "label": "distinct", "kind": kind, **base,
                        "a": request(a), "b": request(variant)})  # fmt: skip
    return out


def main() -> None:
    write(pairs(), OUT)


if __name__ == "__main__":
    main()
