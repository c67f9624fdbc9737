# ruff: noqa: E501, RUF001  (one hand-written item a line, in eleven languages: the data reads best as typed)
"""Build ``benchmarks/reuse_heldout11.jsonl``: the eleventh held-out set of reuse by meaning.

Method (also in ``benchmarks/RESULTS.md``, "held-out set #11"), fixed and committed before
the decision of issue #34's eleventh round was changed and before any evaluation on it:

- 100 hand-written base requests: 80 in English, 10 in each of 8 domains none of the earlier
  sets covers (bakeries, florists, golf courses, cinemas, auction houses, window cleaners,
  trampoline parks, saunas); 20 (errands) not in English (20%): 2 each in German, French,
  Spanish, Italian and Russian, languages whose negation, tense and quantifier words the
  contrast check knows, and 2 each in Latvian, Serbian (Cyrillic), Urdu, Icelandic and Welsh,
  five languages none of sets #1-#10 used.
- Each gives one should-reuse pair (a hand-written paraphrase with several words changed: other
  verbs and nouns, word order, number words for digits, "three dozen" for 36, ordinal and named
  dates, fronted clauses, passives, a comparison turned round; same meaning, same answer) and
  three must-not pairs (a variant changing one element, or two for "two_edits", in different
  places).
- The kinds follow the same fixed cycle of twelve as sets #3-#10: item i's variants are
  kinds ``CYCLE[(3i + j) % 12]``, j = 0, 1, 2, so 25 must-not pairs of each kind. Directions
  are swapped places, accounts and people and opposite verbs (take off / add, raise / lower,
  lengthen / shorten, closer / further, credit / charge, repay / ask for, earlier / later,
  extend / cut, add / remove), tense is changed by auxiliaries and inflection (future,
  progressive, "going to", "about to", "used to", past), quantifiers by "all", "both", "any",
  "every" and their agreement, constraints by an added phrase.
- 100 should-reuse and 300 must-not pairs, rendered like the other sets (the same system prompt,
  one human message): same record format, same ``request()`` and writer as set #1.

Run ``python -m benchmarks.reuse_heldout11_gen``.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.reuse_heldout3_gen import build
from benchmarks.reuse_heldout_gen import write

OUT = Path(__file__).with_name("reuse_heldout11.jsonl")
# Item i's three must-not variants are of kinds CYCLE[(3i + j) % 12] (set #3's), j = 0, 1, 2: items
# i = 0, 1, 2, 3 (mod 4) change (tense, quantifier, constraint), (negation, number, date),
# (entity, direction, unit), (format, comparative, two_edits).
DOMAINS = (
    "bakeries", "florists", "golf_courses", "cinemas", "auction_houses", "window_cleaners",
    "trampoline_parks", "saunas",
)  # fmt: skip

# (language, request, paraphrase, variant 1, variant 2, variant 3), ten a domain.
ITEMS: list[tuple[str, str, str, str, str, str]] = [
    # bakeries
    ("en", "Has the bakery finished decorating Nora's birthday cake?", "Is Nora's birthday cake decorated yet at the bakery?", "Is the bakery still decorating Nora's birthday cake?", "Has the bakery finished decorating both of Nora's birthday cakes?", "Has the bakery finished decorating Nora's birthday cake with the sugar flowers?"),
    ("en", "Order 36 croissants for pickup on June 8.", "For collection on the eighth of June, order three dozen croissants.", "Hold off, I don't want 36 croissants ordered for pickup on June 8.", "Order 48 croissants for pickup on June 8.", "Order 36 croissants for pickup on June 18."),
    ("en", "Take 2 loaves of rye off Mrs. Novak's standing order.", "Mrs. Novak's standing order should have two fewer rye loaves.", "Take 2 loaves of rye off Mr. Quinn's standing order.", "Add 2 loaves of rye to Mrs. Novak's standing order.", "Take 2 kilos of rye off Mrs. Novak's standing order."),
    ("en", "Is sourdough healthier than white bread? Answer in one sentence.", "In a single sentence: is white bread less healthy than sourdough?", "Is sourdough healthier than white bread? Give me a nutrient table per slice.", "Is sourdough less healthy than white bread? Answer in one sentence.", "Is rye bread healthier than white bread for diabetics? Answer in one sentence."),
    ("en", "Is the gluten-free bread baked on site?", "Do they bake the gluten-free bread on the premises?", "Did the gluten-free bread use to be baked on site?", "Is all of the gluten-free bread baked on site?", "Is the gluten-free bread baked on site in a separate oven?"),
    ("en", "Deliver 40 bagels to the office on September 12.", "Get forty bagels delivered to the office on the 12th of September.", "Cancel that, don't deliver 40 bagels to the office on September 12.", "Deliver 60 bagels to the office on September 12.", "Deliver 40 bagels to the office on September 2."),
    ("en", "Increase the sugar in Ben's muffin recipe by 50 grams.", "Put fifty more grams of sugar into the muffin recipe Ben uses.", "Increase the sugar in Ava's muffin recipe by 50 grams.", "Reduce the sugar in Ben's muffin recipe by 50 grams.", "Increase the sugar in Ben's muffin recipe by 50 percent."),
    ("en", "Does a croissant have more calories than a doughnut? Keep it to a yes or no.", "Yes or no: are there more calories in a croissant than in a doughnut?", "Does a croissant have more calories than a doughnut? Show the calories, fat and sugar side by side.", "Does a croissant have fewer calories than a doughnut? Keep it to a yes or no.", "Does a croissant have more sugar than a muffin? Keep it to a yes or no."),
    ("en", "Are the hot cross buns sold out?", "Have they run out of hot cross buns?", "Are the hot cross buns about to sell out?", "Are both kinds of hot cross buns sold out?", "Are the hot cross buns sold out at the station branch?"),
    ("en", "Bake 2 wedding cakes for the Lopez party on October 19.", "For the Lopez party on the nineteenth of October, make two wedding cakes.", "Please skip baking 2 wedding cakes for the Lopez party on October 19.", "Bake 3 wedding cakes for the Lopez party on October 19.", "Bake 2 wedding cakes for the Lopez party on October 9."),
    # florists
    ("en", "Transfer my 30-dollar store credit at the florist to my mother's account.", "Move the thirty dollars of florist store credit I have over to my mother's account.", "Transfer my 30-dollar store credit at the florist to my aunt's account.", "Transfer my mother's 30-dollar store credit at the florist to my account.", "Transfer my 30-euro store credit at the florist to my mother's account."),
    ("en", "Do tulips last longer in a vase than roses? One line, please.", "Please, one line: do roses wilt in a vase sooner than tulips do?", "Do tulips last longer in a vase than roses? Give me a day-by-day care schedule.", "Do tulips wilt faster in a vase than roses? One line, please.", "Do lilies last longer in a vase than carnations? One line, please."),
    ("en", "Has the florist delivered the funeral wreath?", "Did the funeral wreath get delivered by the florist?", "Is the florist delivering the funeral wreath?", "Has the florist delivered every funeral wreath?", "Has the florist delivered the funeral wreath to the chapel?"),
    ("en", "Order 25 white lilies for the church on April 27.", "For the church on the twenty-seventh of April, order twenty-five white lilies.", "I'd prefer you not order 25 white lilies for the church on April 27.", "Order 20 white lilies for the church on April 27.", "Order 25 white lilies for the church on April 26."),
    ("en", "Cut the stems in Rosa's bridal bouquet 5 centimeters shorter.", "Trim five centimeters off the stems of Rosa's bridal bouquet.", "Cut the stems in Elena's bridal bouquet 5 centimeters shorter.", "Leave the stems in Rosa's bridal bouquet 5 centimeters longer.", "Cut the stems in Rosa's bridal bouquet 5 inches shorter."),
    ("en", "Are orchids harder to keep alive than succulents? Answer in two sentences.", "Two sentences: is keeping an orchid alive more difficult than keeping a succulent alive?", "Are orchids harder to keep alive than succulents? Answer with a watering calendar.", "Are orchids easier to keep alive than succulents? Answer in two sentences.", "Are orchids harder to keep alive than ferns in a dark flat? Answer in two sentences."),
    ("en", "Are the peonies in stock this week?", "Do you have peonies in this week?", "Will the peonies be in stock this week?", "Are all the peony colors in stock this week?", "Are the peonies in stock this week in pale pink?"),
    ("en", "Deliver 3 sympathy bouquets to the Greene family on March 4.", "On the fourth of March, send three sympathy bouquets to the Greene family.", "Under no circumstances deliver 3 sympathy bouquets to the Greene family on March 4.", "Deliver 2 sympathy bouquets to the Greene family on March 4.", "Deliver 3 sympathy bouquets to the Greene family on March 14."),
    ("en", "Add 6 stems of eucalyptus to Mrs. Duarte's arrangement.", "Put six more eucalyptus stems into Mrs. Duarte's arrangement.", "Add 6 stems of eucalyptus to Mr. Walsh's arrangement.", "Remove 6 stems of eucalyptus from Mrs. Duarte's arrangement.", "Add 6 bunches of eucalyptus to Mrs. Duarte's arrangement."),
    ("en", "Which is more fragrant, jasmine or gardenia? Short answer only.", "Short answer only: does gardenia or jasmine have the stronger scent?", "Which is more fragrant, jasmine or gardenia? Explain with a scent profile for each.", "Which is less fragrant, jasmine or gardenia? Short answer only.", "Which is more fragrant at night, lavender or gardenia? Short answer only."),
    # golf courses
    ("en", "Is the back nine open after the storm?", "Can we play the back nine again now that the storm has passed?", "Was the back nine open after the storm?", "Are both nines open after the storm?", "Is the back nine open after the storm for carts?"),
    ("en", "Book a tee time for 4 players on July 22.", "Reserve a tee time on the twenty-second of July for a group of four.", "Don't go booking a tee time for 4 players on July 22.", "Book a tee time for 3 players on July 22.", "Book a tee time for 4 players on July 21."),
    ("en", "Move 100 dollars from my pro shop credit to Dan's.", "Shift a hundred dollars of my pro-shop credit over to Dan.", "Move 100 dollars from my pro shop credit to Carl's.", "Move 100 dollars from Dan's pro shop credit to mine.", "Move 100 points from my pro shop credit to Dan's."),
    ("en", "Is a driver harder to hit than a 3-wood? Answer briefly.", "Briefly, please: is hitting a driver tougher than hitting a 3-wood?", "Is a driver harder to hit than a 3-wood? Give me a practice drill for each club.", "Is a driver easier to hit than a 3-wood? Answer briefly.", "Is a hybrid harder to hit than a 5-iron? Answer briefly."),
    ("en", "Has the club repaired the cart path on the 7th hole?", "Was the cart path at the seventh hole fixed by the club?", "Is the club going to repair the cart path on the 7th hole?", "Has the club repaired any of the cart paths on the 7th hole?", "Has the club repaired the cart path on the 7th hole with asphalt?"),
    ("en", "Reserve 2 electric carts for the tournament on August 16.", "For the tournament on the sixteenth of August, hold two electric carts.", "Never mind, don't reserve 2 electric carts for the tournament on August 16.", "Reserve 4 electric carts for the tournament on August 16.", "Reserve 2 electric carts for the tournament on August 6."),
    ("en", "Lengthen the tee box on the 3rd hole by 10 yards.", "Make the third hole's tee box ten yards longer.", "Lengthen the tee box on the practice hole by 10 yards.", "Shorten the tee box on the 3rd hole by 10 yards.", "Lengthen the tee box on the 3rd hole by 10 meters."),
    ("en", "Are links courses windier than parkland courses? Reply in one word.", "One word: do parkland courses get less wind than links courses?", "Are links courses windier than parkland courses? Reply with average wind speeds in a table.", "Are links courses calmer than parkland courses? Reply in one word.", "Are links courses drier than parkland courses in summer? Reply in one word."),
    ("en", "Are the greens being aerated this week?", "Is aeration of the greens happening this week?", "Were the greens aerated this week?", "Are all eighteen greens being aerated this week?", "Are the greens being aerated this week before the club championship?"),
    ("en", "Sign up 8 juniors for the golf camp starting June 24.", "Enroll eight junior players in the golf camp that starts on the 24th of June.", "Please hold off and do not sign up 8 juniors for the golf camp starting June 24.", "Sign up 9 juniors for the golf camp starting June 24.", "Sign up 8 juniors for the golf camp starting June 4."),
    # cinemas
    ("en", "Move our seats 3 rows closer to the screen.", "Shift our seats three rows nearer the screen.", "Move their seats 3 rows closer to the screen.", "Move our seats 3 rows further from the screen.", "Move our seats 3 meters closer to the screen."),
    ("en", "Is IMAX louder than a regular screen? Just say yes or no.", "Yes or no only: is a regular screen quieter than IMAX?", "Is IMAX louder than a regular screen? Give me decibel levels for both.", "Is IMAX quieter than a regular screen? Just say yes or no.", "Is Dolby Cinema brighter than a regular screen? Just say yes or no."),
    ("en", "Has the cinema refunded my tickets for the cancelled screening?", "Did I get my money back from the cinema for the tickets to the screening they cancelled?", "Will the cinema refund my tickets for the cancelled screening?", "Has the cinema refunded both my tickets for the cancelled screening?", "Has the cinema refunded my tickets for the cancelled screening to my gift card?"),
    ("en", "Buy 5 tickets for the 7 p.m. showing on December 31.", "Get five tickets for the seven o'clock evening showing on New Year's Eve.", "No need to buy 5 tickets for the 7 p.m. showing on December 31.", "Buy 6 tickets for the 7 p.m. showing on December 31.", "Buy 5 tickets for the 7 p.m. showing on December 30."),
    ("en", "Send Kofi 15 dollars from my cinema gift card.", "Put fifteen dollars from my cinema gift card onto Kofi's.", "Send Ama 15 dollars from my cinema gift card.", "Send me 15 dollars from Kofi's cinema gift card.", "Send Kofi 15 pounds from my cinema gift card."),
    ("en", "Are matinees cheaper than evening screenings? Answer in a few words.", "In a few words: do evening screenings cost more than matinees?", "Are matinees cheaper than evening screenings? Answer with the full price list.", "Are matinees pricier than evening screenings? Answer in a few words.", "Are matinees emptier than evening screenings on Sundays? Answer in a few words."),
    ("en", "Is the new Pixar film still showing?", "Are they still screening the new Pixar movie?", "Will the new Pixar film still be showing?", "Are both new Pixar films still showing?", "Is the new Pixar film still showing in 3D?"),
    ("en", "Reserve 2 wheelchair spaces for the screening on January 11.", "For the January eleventh screening, keep two wheelchair spaces free.", "Do not reserve 2 wheelchair spaces for the screening on January 11.", "Reserve 1 wheelchair space for the screening on January 11.", "Reserve 2 wheelchair spaces for the screening on January 12."),
    ("en", "Increase the main auditorium's volume by 5 decibels.", "Make the main auditorium five decibels louder.", "Increase the small auditorium's volume by 5 decibels.", "Decrease the main auditorium's volume by 5 decibels.", "Increase the main auditorium's volume by 5 percent."),
    ("en", "Is the book of Dune better than the film? One sentence.", "One sentence: is the Dune film worse than the book?", "Is the book of Dune better than the film? Write me a full essay with examples.", "Is the book of Dune worse than the film? One sentence.", "Is the book of Jurassic Park better than the film? Give me a scene-by-scene comparison."),
    # auction houses
    ("en", "Has the auction house sold my grandfather's clock?", "Did my grandfather's clock get sold at the auction house?", "Is the auction house going to sell my grandfather's clock?", "Has the auction house sold both of my grandfather's clocks?", "Has the auction house sold my grandfather's clock above the reserve?"),
    ("en", "Register 2 bidders for the online sale on May 15.", "Sign two bidders up for the May fifteenth online sale.", "You shouldn't register 2 bidders for the online sale on May 15.", "Register 3 bidders for the online sale on May 15.", "Register 2 bidders for the online sale on May 16."),
    ("en", "Raise the reserve on lot 12 by 500 dollars.", "Put the reserve price for lot 12 five hundred dollars higher.", "Raise the reserve on lot 21 by 500 dollars.", "Lower the reserve on lot 12 by 500 dollars.", "Raise the reserve on lot 12 by 500 euros."),
    ("en", "Do paintings fetch more than sculptures at auction? Answer yes or no.", "Yes or no: at auction, do sculptures fetch less than paintings?", "Do paintings fetch more than sculptures at auction? Show me last year's sale totals by category.", "Do paintings fetch less than sculptures at auction? Answer yes or no.", "Do prints fetch more than photographs at auction? Answer yes or no."),
    ("en", "Has the appraiser valued the silver tea set?", "Was the silver tea set valued by the appraiser?", "Is the appraiser valuing the silver tea set?", "Has the appraiser valued every piece of the silver tea set?", "Has the appraiser valued the silver tea set for insurance?"),
    ("en", "Consign 6 lots to the October 30 jewelry sale.", "Put six lots into the jewelry sale on the thirtieth of October.", "Please do not consign 6 lots to the October 30 jewelry sale.", "Consign 9 lots to the October 30 jewelry sale.", "Consign 6 lots to the October 3 jewelry sale."),
    ("en", "Refund Ms. Arden 250 euros of her buyer's premium.", "Give Ms. Arden back two hundred and fifty euros of the buyer's premium she paid.", "Refund Mr. Sato 250 euros of his buyer's premium.", "Charge Ms. Arden 250 euros more buyer's premium.", "Refund Ms. Arden 250 dollars of her buyer's premium."),
    ("en", "Are phone bids more common than online bids now? Answer in one line.", "In one line: are online bids now less common than phone bids?", "Are phone bids more common than online bids now? Give me a yearly breakdown chart.", "Are phone bids rarer than online bids now? Answer in one line.", "Are phone bids more common than room bids now in Hong Kong? Answer in one line."),
    ("en", "Is the catalogue for the spring sale printed?", "Has the spring sale catalogue been printed?", "Is the catalogue for the spring sale being printed?", "Are all the catalogues for the spring sale printed?", "Is the catalogue for the spring sale printed in color?"),
    ("en", "Ship 3 crates to the winning bidder on December 5.", "On the fifth of December, send three crates off to the winning bidder.", "Don't ship 3 crates to the winning bidder on December 5.", "Ship 2 crates to the winning bidder on December 5.", "Ship 3 crates to the winning bidder on December 15."),
    # window cleaners
    ("en", "Move the window cleaning at the Bauer house 2 days later.", "Push the Bauers' window cleaning back two days.", "Move the window cleaning at the Kim house 2 days later.", "Move the window cleaning at the Bauer house 2 days earlier.", "Move the window cleaning at the Bauer house 2 weeks later."),
    ("en", "Is squeegeeing faster than using a water-fed pole? Reply with one sentence.", "Reply with one sentence: does a water-fed pole take longer than a squeegee?", "Is squeegeeing faster than using a water-fed pole? Reply with a step-by-step comparison.", "Is squeegeeing slower than using a water-fed pole? Reply with one sentence.", "Is squeegeeing cheaper than using a water-fed pole on skylights? Reply with one sentence."),
    ("en", "Did the cleaners do the conservatory roof?", "Was the conservatory roof cleaned by the cleaners?", "Are the cleaners doing the conservatory roof?", "Did the cleaners do all of the conservatory roof?", "Did the cleaners do the conservatory roof from the inside?"),
    ("en", "Book a clean for 14 windows on August 29.", "On the twenty-ninth of August, get fourteen windows cleaned.", "We don't need a clean for 14 windows on August 29.", "Book a clean for 16 windows on August 29.", "Book a clean for 14 windows on August 28."),
    ("en", "Charge the Oyelaran office 90 dollars for the gutter clearing.", "Bill the Oyelaran office ninety dollars for clearing the gutters.", "Charge the Fischer office 90 dollars for the gutter clearing.", "Credit the Oyelaran office 90 dollars for the gutter clearing.", "Charge the Oyelaran office 90 euros for the gutter clearing."),
    ("en", "Do windows get dirtier in spring than in autumn? Keep it brief.", "Keep it brief: do windows get less dirty in autumn than in spring?", "Do windows get dirtier in spring than in autumn? Give me a monthly cleaning plan.", "Do windows get less dirty in spring than in autumn? Keep it brief.", "Do skylights get dirtier in winter than in autumn? Keep it brief."),
    ("en", "Have the ladders been returned to the van?", "Are the ladders back in the van?", "Will the ladders be returned to the van?", "Have both ladders been returned to the van?", "Have the ladders been returned to the van and strapped down?"),
    ("en", "Schedule 4 monthly cleans starting February 6.", "From the sixth of February, set up four monthly cleans.", "Please don't schedule 4 monthly cleans starting February 6.", "Schedule 6 monthly cleans starting February 6.", "Schedule 4 monthly cleans starting February 16."),
    ("en", "Give Aliyu 3 of Grace's Saturday jobs.", "Hand three of Grace's Saturday jobs over to Aliyu.", "Give Tom 3 of Grace's Saturday jobs.", "Give Grace 3 of Aliyu's Saturday jobs.", "Give Aliyu 3 hours of Grace's Saturday jobs."),
    ("en", "Which streaks less, vinegar or dish soap? Answer in a word.", "In a word: does dish soap or vinegar leave fewer streaks?", "Which streaks less, vinegar or dish soap? Answer with mixing ratios for each.", "Which streaks more, vinegar or dish soap? Answer in a word.", "Which streaks less on mirrors, vinegar or ammonia? Answer in a word."),
    # trampoline parks
    ("en", "Is the dodgeball court open this afternoon?", "This afternoon, can we use the dodgeball court?", "Was the dodgeball court open this afternoon?", "Are both dodgeball courts open this afternoon?", "Is the dodgeball court open this afternoon for under-fives?"),
    ("en", "Book a party for 12 kids on March 30.", "Reserve a party for a dozen children on the thirtieth of March.", "Don't book a party for 12 kids on March 30.", "Book a party for 15 kids on March 30.", "Book a party for 12 kids on March 13."),
    ("en", "Move 20 dollars from Eli's jump pass to Maya's.", "Take twenty dollars off Eli's jump pass and put it on Maya's.", "Move 20 dollars from Eli's jump pass to Zara's.", "Move 20 dollars from Maya's jump pass to Eli's.", "Move 20 minutes from Eli's jump pass to Maya's."),
    ("en", "Is the foam pit safer than the airbag? Give a one-line answer.", "One-line answer: is the airbag more dangerous than the foam pit?", "Is the foam pit safer than the airbag? Give me injury statistics for both.", "Is the foam pit riskier than the airbag? Give a one-line answer.", "Is the ninja course safer than the airbag for toddlers? Give a one-line answer."),
    ("en", "Has the park replaced the torn trampoline mat?", "Did the park get the torn trampoline mat replaced?", "Is the park replacing the torn trampoline mat?", "Has the park replaced every torn trampoline mat?", "Has the park replaced the torn trampoline mat in the toddler zone?"),
    ("en", "Buy 6 pairs of grip socks for the session on July 4.", "Get six pairs of grip socks for the Fourth of July session.", "Stop, do not buy 6 pairs of grip socks for the session on July 4.", "Buy 5 pairs of grip socks for the session on July 4.", "Buy 6 pairs of grip socks for the session on July 5."),
    ("en", "Extend Noah's jump session by 30 minutes.", "Add half an hour to Noah's jump session.", "Extend Ruby's jump session by 30 minutes.", "Cut Noah's jump session by 30 minutes.", "Extend Noah's jump session by 30 percent."),
    ("en", "Do adults burn more calories trampolining than running? Answer in a sentence.", "Answer in a sentence: for adults, does running burn fewer calories than trampolining?", "Do adults burn more calories trampolining than running? Answer with calories per hour in a table.", "Do adults burn fewer calories trampolining than running? Answer in a sentence.", "Do children burn more calories trampolining than swimming? Answer in a sentence."),
    ("en", "Are the safety nets inspected before opening?", "Does someone inspect the safety nets before the park opens?", "Were the safety nets inspected before opening?", "Are all the safety nets inspected before opening?", "Are the safety nets inspected before opening by a certified engineer?"),
    ("en", "Reserve 3 lanes of the dodgeball court for June 1.", "Hold three dodgeball court lanes for the first of June.", "I don't want you to reserve 3 lanes of the dodgeball court for June 1.", "Reserve 4 lanes of the dodgeball court for June 1.", "Reserve 3 lanes of the dodgeball court for July 1."),
    # saunas
    ("en", "Lower the temperature in the Finnish sauna by 5 degrees.", "Make the Finnish sauna five degrees cooler.", "Lower the temperature in the infrared sauna by 5 degrees.", "Raise the temperature in the Finnish sauna by 5 degrees.", "Lower the temperature in the Finnish sauna by 5 percent."),
    ("en", "Is a cold plunge better for recovery than a cool shower? Reply in one sentence.", "Reply in one sentence: does a cool shower help recovery less than a cold plunge?", "Is a cold plunge better for recovery than a cool shower? Reply with a list of studies.", "Is a cold plunge worse for recovery than a cool shower? Reply in one sentence.", "Is a cold plunge better for sleep than a hot bath? Reply in one sentence."),
    ("en", "Has the spa cleaned the plunge pool today?", "Was the plunge pool cleaned by the spa today?", "Is the spa going to clean the plunge pool today?", "Has the spa cleaned both plunge pools today?", "Has the spa cleaned the plunge pool today with chlorine?"),
    ("en", "Book 2 private sauna cabins for February 22.", "Reserve two private sauna cabins for the twenty-second of February.", "Refrain from booking 2 private sauna cabins for February 22.", "Book 3 private sauna cabins for February 22.", "Book 2 private sauna cabins for February 23."),
    ("en", "Add 3 visits to Karin's ten-visit card.", "Put three more visits on Karin's ten-visit card.", "Add 3 visits to Mikko's ten-visit card.", "Remove 3 visits from Karin's ten-visit card.", "Add 3 months to Karin's ten-visit card."),
    ("en", "Is a steam room hotter than a dry sauna? Short answer, please.", "Short answer please: is a dry sauna cooler than a steam room?", "Is a steam room hotter than a dry sauna? Show typical temperatures and humidity in a table.", "Is a steam room cooler than a dry sauna? Short answer, please.", "Is an infrared sauna hotter than a dry sauna for beginners? Short answer, please."),
    ("en", "Are the towels included in the entry price?", "Does the entry price cover towels?", "Were the towels included in the entry price?", "Are the towels included in every entry price?", "Are the towels included in the entry price on weekends?"),
    ("en", "Sign 5 of us up for the aufguss session on April 9.", "Put five of us down for the aufguss session on the ninth of April.", "Leave it, don't sign 5 of us up for the aufguss session on April 9.", "Sign 4 of us up for the aufguss session on April 9.", "Sign 5 of us up for the aufguss session on April 19."),
    ("en", "Shorten Ms. Lindgren's membership by 2 months.", "Take two months off Ms. Lindgren's membership.", "Shorten Mr. Aalto's membership by 2 months.", "Extend Ms. Lindgren's membership by 2 months.", "Shorten Ms. Lindgren's membership by 2 weeks."),
    ("en", "Which is better for sore muscles, the sauna or the hot tub? One sentence only.", "One sentence only: for sore muscles, does the hot tub or the sauna help more?", "Which is better for sore muscles, the sauna or the hot tub? Give me a comparison with pros and cons.", "Which is worse for sore muscles, the sauna or the hot tub? One sentence only.", "Which is better for a cold, the sauna or the steam room? One sentence only."),
    # German
    ("de", "Hat der Vermieter die Nebenkostenabrechnung schon geschickt?", "Ist die Nebenkostenabrechnung vom Vermieter schon gekommen?", "Wird der Vermieter die Nebenkostenabrechnung schicken?", "Hat der Vermieter schon beide Nebenkostenabrechnungen geschickt?", "Hat der Vermieter die Nebenkostenabrechnung schon per E-Mail geschickt?"),
    ("de", "Bestell 2 Säcke Blumenerde für den 15. April.", "Für den fünfzehnten April bitte zwei Säcke Blumenerde bestellen.", "Bestell keine 2 Säcke Blumenerde für den 15. April.", "Bestell 5 Säcke Blumenerde für den 15. April.", "Bestell 2 Säcke Blumenerde für den 16. April."),
    # French
    ("fr", "Rembourse 15 euros à Lucie pour le cinéma.", "Rends à Lucie les quinze euros du cinéma.", "Rembourse 15 euros à Hugo pour le cinéma.", "Demande 15 euros à Lucie pour le cinéma.", "Rembourse 15 dollars à Lucie pour le cinéma."),
    ("fr", "Le train est-il moins cher que la voiture pour aller à Lyon ? Réponds par oui ou non.", "Réponds par oui ou non : aller à Lyon en voiture coûte-t-il plus cher qu'en train ?", "Le train est-il moins cher que la voiture pour aller à Lyon ? Donne-moi le détail des coûts.", "Le train est-il plus cher que la voiture pour aller à Lyon ? Réponds par oui ou non.", "Le train est-il moins cher que l'avion pour aller à Marseille ? Réponds par oui ou non."),
    # Spanish
    ("es", "¿Ha renovado ya el banco mi tarjeta de débito?", "¿Ya me han renovado la tarjeta de débito en el banco?", "¿Va a renovar el banco mi tarjeta de débito?", "¿Ha renovado ya el banco todas mis tarjetas de débito?", "¿Ha renovado ya el banco mi tarjeta de débito con el chip nuevo?"),
    ("es", "Reserva 3 entradas para el museo el 6 de enero.", "Para el día de Reyes, reserva tres entradas para el museo.", "No reserves 3 entradas para el museo el 6 de enero.", "Reserva 4 entradas para el museo el 6 de enero.", "Reserva 3 entradas para el museo el 16 de enero."),
    # Italian
    ("it", "Alza il riscaldamento in camera da letto di 2 gradi.", "Metti il riscaldamento della camera da letto due gradi più alto.", "Alza il riscaldamento in soggiorno di 2 gradi.", "Abbassa il riscaldamento in camera da letto di 2 gradi.", "Alza il riscaldamento in camera da letto di 2 gradi Fahrenheit."),
    ("it", "Il supermercato è più caro del mercato rionale? Rispondi in una frase.", "In una frase: al mercato rionale si spende meno che al supermercato?", "Il supermercato è più caro del mercato rionale? Fammi una tabella con i prezzi.", "Il supermercato è più economico del mercato rionale? Rispondi in una frase.", "Il discount è più caro del mercato rionale per la frutta? Rispondi in una frase."),
    # Russian
    ("ru", "Пришла ли уже пенсия на мамину карту?", "Мамина пенсия уже поступила на карту?", "Придёт ли пенсия на мамину карту?", "Пришла ли уже пенсия на обе мамины карты?", "Пришла ли уже пенсия на мамину карту вместе с надбавкой?"),
    ("ru", "Закажи 2 такси в аэропорт на 3 июля.", "На третье июля вызови два такси до аэропорта.", "Не заказывай 2 такси в аэропорт на 3 июля.", "Закажи 3 такси в аэропорт на 3 июля.", "Закажи 2 такси в аэропорт на 13 июля."),
    # Latvian
    ("lv", "Pagarini manu sporta zāles abonementu par 3 mēnešiem.", "Pievieno manam sporta zāles abonementam vēl trīs mēnešus.", "Pagarini Ievas sporta zāles abonementu par 3 mēnešiem.", "Saīsini manu sporta zāles abonementu par 3 mēnešiem.", "Pagarini manu sporta zāles abonementu par 3 nedēļām."),
    ("lv", "Vai Rīgā tramvajs ir lētāks par taksometru? Atbildi vienā teikumā.", "Vienā teikumā: vai Rīgā ar taksometru braukt ir dārgāk nekā ar tramvaju?", "Vai Rīgā tramvajs ir lētāks par taksometru? Atbildi ar cenu tabulu.", "Vai Rīgā tramvajs ir dārgāks par taksometru? Atbildi vienā teikumā.", "Vai Liepājā autobuss ir lētāks par taksometru? Atbildi vienā teikumā."),
    # Serbian (Cyrillic)
    ("sr", "Да ли је мајстор већ поправио веш-машину?", "Је ли мајстор већ средио веш-машину?", "Да ли ће мајстор поправити веш-машину?", "Да ли је мајстор већ поправио обе веш-машине?", "Да ли је мајстор већ поправио веш-машину са новим мотором?"),
    ("sr", "Резервиши 2 карте за воз за 10. септембар.", "За десети септембар резервиши две карте за воз.", "Немој да резервишеш 2 карте за воз за 10. септембар.", "Резервиши 3 карте за воз за 10. септембар.", "Резервиши 2 карте за воз за 11. септембар."),
    # Urdu
    ("ur", "امی کی ڈاکٹر کی اپائنٹمنٹ ایک گھنٹہ پہلے کر دو۔", "ڈاکٹر کے پاس امی کا وقت ایک گھنٹہ جلدی کر دو۔", "ابو کی ڈاکٹر کی اپائنٹمنٹ ایک گھنٹہ پہلے کر دو۔", "امی کی ڈاکٹر کی اپائنٹمنٹ ایک گھنٹہ بعد کر دو۔", "امی کی ڈاکٹر کی اپائنٹمنٹ ایک دن پہلے کر دو۔"),
    ("ur", "کیا لاہور میں رکشہ ٹیکسی سے سستا ہے؟ ایک جملے میں جواب دو۔", "ایک جملے میں بتاؤ: کیا لاہور میں ٹیکسی رکشے سے مہنگی پڑتی ہے؟", "کیا لاہور میں رکشہ ٹیکسی سے سستا ہے؟ کرایوں کی پوری فہرست کے ساتھ جواب دو۔", "کیا لاہور میں رکشہ ٹیکسی سے مہنگا ہے؟ ایک جملے میں جواب دو۔", "کیا کراچی میں بس ٹیکسی سے سستی ہے؟ ایک جملے میں جواب دو۔"),
    # Icelandic
    ("is", "Er bíllinn minn tilbúinn á verkstæðinu?", "Er verkstæðið búið að gera við bílinn minn?", "Verður bíllinn minn tilbúinn á verkstæðinu?", "Eru báðir bílarnir mínir tilbúnir á verkstæðinu?", "Er bíllinn minn tilbúinn á verkstæðinu með nýju dekkjunum?"),
    ("is", "Pantaðu 3 sæti í rútunni til Akureyrar 20. júlí.", "Bókaðu þrjú sæti í rútunni til Akureyrar tuttugasta júlí.", "Ekki panta 3 sæti í rútunni til Akureyrar 20. júlí.", "Pantaðu 2 sæti í rútunni til Akureyrar 20. júlí.", "Pantaðu 3 sæti í rútunni til Akureyrar 21. júlí."),
    # Welsh
    ("cy", "Anfona 30 punt o fy nghyfrif i i gyfrif Gareth.", "Trosglwydda dri deg punt i Gareth o fy nghyfrif i.", "Anfona 30 punt o fy nghyfrif i i gyfrif Eleri.", "Anfona 30 punt o gyfrif Gareth i fy nghyfrif i.", "Anfona 30 ewro o fy nghyfrif i i gyfrif Gareth."),
    ("cy", "Ydy llaeth ceirch yn iachach na llaeth buwch? Ateb mewn un frawddeg.", "Mewn un frawddeg: ydy llaeth buwch yn llai iach na llaeth ceirch?", "Ydy llaeth ceirch yn iachach na llaeth buwch? Rho restr lawn o'r maetholion.", "Ydy llaeth ceirch yn llai iach na llaeth buwch? Ateb mewn un frawddeg.", "Ydy llaeth almon yn rhatach na llaeth buwch? Ateb mewn un frawddeg."),
]  # fmt: skip


def pairs() -> list[dict[str, object]]:
    """The 400 pairs, in a fixed order (built as set #3's, with its cycle of kinds)."""
    return build(ITEMS, DOMAINS, "errands", "k")


def main() -> None:
    write(pairs(), OUT)


if __name__ == "__main__":
    main()
