# ruff: noqa: E501, RUF001  (one hand-written item a line, in eleven languages: the data reads best as typed)
"""Build ``benchmarks/reuse_heldout12.jsonl``: the twelfth held-out set of reuse by meaning.

Method (also in ``benchmarks/RESULTS.md``, "held-out set #12"), fixed and committed before
the decision of issue #34's twelfth round was changed and before any evaluation on it:

- 100 hand-written base requests: 80 in English, 10 in each of 8 domains none of the earlier
  sets covers (car washes, funeral homes, archery ranges, karaoke bars, shoe repair, go-kart
  tracks, butcher shops, chimney sweeps); 20 (errands) not in English (20%): 2 each in German,
  French, Spanish, Portuguese and Italian, languages whose negation, tense and quantifier words
  the contrast check knows, and 2 each in Azerbaijani, Macedonian, Basque, Albanian and
  Esperanto, five languages none of sets #1-#11 used.
- Each gives one should-reuse pair (a hand-written paraphrase with several words changed: other
  verbs and nouns, word order, number words for digits, "two dozen" for 24, "three quarters of
  an hour" for 45 minutes, ordinal and named dates, fronted clauses, passives, a comparison
  turned round; same meaning, same answer) and three must-not pairs (a variant changing one
  element, or two for "two_edits", in different places).
- The kinds follow the same fixed cycle of twelve as sets #3-#11: item i's variants are
  kinds ``CYCLE[(3i + j) % 12]``, j = 0, 1, 2, so 25 must-not pairs of each kind. Directions
  are swapped places, accounts, tabs and people and opposite verbs (earlier / later, increase /
  decrease, raise / lower, up / down, closer / farther, stretch / shrink, thicker / thinner,
  extend / shorten, add / remove, refund / charge, charge / refund), tense is changed by
  auxiliaries and inflection (future, progressive, "going to", "about to", "used to", past),
  quantifiers by "all", "all of", "both", "every" and their agreement, constraints by an added
  phrase.
- 100 should-reuse and 300 must-not pairs, rendered like the other sets (the same system prompt,
  one human message): same record format, same ``request()`` and writer as set #1.

Run ``python -m benchmarks.reuse_heldout12_gen``.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.reuse_heldout3_gen import build
from benchmarks.reuse_heldout_gen import write

OUT = Path(__file__).with_name("reuse_heldout12.jsonl")
# Item i's three must-not variants are of kinds CYCLE[(3i + j) % 12] (set #3's), j = 0, 1, 2: items
# i = 0, 1, 2, 3 (mod 4) change (tense, quantifier, constraint), (negation, number, date),
# (entity, direction, unit), (format, comparative, two_edits).
DOMAINS = (
    "car_washes", "funeral_homes", "archery_ranges", "karaoke_bars", "shoe_repair",
    "go_kart_tracks", "butcher_shops", "chimney_sweeps",
)  # fmt: skip

# (language, request, paraphrase, variant 1, variant 2, variant 3), ten a domain.
ITEMS: list[tuple[str, str, str, str, str, str]] = [
    # car washes
    ("en", "Has the car wash finished detailing my SUV?", "Is my SUV done being detailed at the car wash?", "Is the car wash about to finish detailing my SUV?", "Has the car wash finished detailing both of my SUVs?", "Has the car wash finished detailing my SUV, engine bay included?"),
    ("en", "Buy 3 unlimited wash passes for the fleet starting May 1.", "Get three unlimited wash passes for the fleet, beginning the first of May.", "Actually, skip buying 3 unlimited wash passes for the fleet starting May 1.", "Buy 5 unlimited wash passes for the fleet starting May 1.", "Buy 3 unlimited wash passes for the fleet starting May 11."),
    ("en", "Move Jamal's wash appointment 45 minutes earlier.", "Bring Jamal's car wash slot forward by three quarters of an hour.", "Move Priya's wash appointment 45 minutes earlier.", "Move Jamal's wash appointment 45 minutes later.", "Move Jamal's wash appointment 45 days earlier."),
    ("en", "Is a touchless wash gentler on paint than a brush wash? Yes or no.", "Yes or no: are brush washes harsher on paint than touchless ones?", "Is a touchless wash gentler on paint than a brush wash? Explain with the pros and cons of each.", "Is a touchless wash rougher on paint than a brush wash? Yes or no.", "Is a hand wash gentler on paint than a brush wash in winter? Yes or no."),
    ("en", "Does the car wash take card payments at the self-serve bays?", "Can I pay by card at the car wash's self-service bays?", "Did the car wash use to take card payments at the self-serve bays?", "Do all the self-serve bays at the car wash take card payments?", "Does the car wash take card payments at the self-serve bays after 10 p.m.?"),
    ("en", "Book 2 interior cleans for the vans on November 14.", "On the fourteenth of November, schedule two interior cleans for the vans.", "Don't bother booking 2 interior cleans for the vans on November 14.", "Book 4 interior cleans for the vans on November 14.", "Book 2 interior cleans for the vans on November 4."),
    ("en", "Put 25 dollars on my wife's car wash card from mine.", "Transfer twenty-five dollars from my car wash card onto my wife's.", "Put 25 dollars on my son's car wash card from mine.", "Put 25 dollars on my car wash card from my wife's.", "Put 25 credits on my wife's car wash card from mine."),
    ("en", "Does ceramic coating last longer than wax? Answer in one short sentence.", "In one short sentence: does wax wear off sooner than ceramic coating?", "Does ceramic coating last longer than wax? Give me a table of durability and cost.", "Does ceramic coating wear off faster than wax? Answer in one short sentence.", "Does a paint sealant last longer than wax on a black car? Answer in one short sentence."),
    ("en", "Is the vacuum station working again?", "Has the vacuum station been fixed so it works again?", "Will the vacuum station be working again?", "Are all the vacuum stations working again?", "Is the vacuum station by the exit working again?"),
    ("en", "Sign us up for 6 monthly washes from January 3.", "Starting the third of January, enroll us in six monthly washes.", "Please do not sign us up for 6 monthly washes from January 3.", "Sign us up for 12 monthly washes from January 3.", "Sign us up for 6 monthly washes from January 13."),
    # funeral homes
    ("en", "Move the Harper viewing 1 hour later.", "Push the Harper viewing back by an hour.", "Move the Okafor viewing 1 hour later.", "Move the Harper viewing 1 hour earlier.", "Move the Harper viewing 1 day later."),
    ("en", "Is cremation cheaper than burial? Answer in one line.", "One line: does a burial cost more than a cremation?", "Is cremation cheaper than burial? Break down the costs item by item.", "Is cremation more expensive than burial? Answer in one line.", "Is a green burial cheaper than cremation in Ohio? Answer in one line."),
    ("en", "Has the funeral home printed the memorial cards?", "Are the memorial cards printed yet by the funeral home?", "Is the funeral home printing the memorial cards?", "Has the funeral home printed all of the memorial cards?", "Has the funeral home printed the memorial cards on cream paper?"),
    ("en", "Reserve 40 chairs for the service on March 18.", "For the service on the eighteenth of March, set aside forty chairs.", "Hold off on reserving 40 chairs for the service on March 18.", "Reserve 60 chairs for the service on March 18.", "Reserve 40 chairs for the service on March 8."),
    ("en", "Refund the Castillo family 200 dollars for the cancelled limousine.", "Give the Castillo family back two hundred dollars for the limousine that was cancelled.", "Refund the Brennan family 200 dollars for the cancelled limousine.", "Charge the Castillo family 200 dollars for the cancelled limousine.", "Refund the Castillo family 200 pesos for the cancelled limousine."),
    ("en", "Which takes longer to arrange, a military funeral or a civil one? Just name it.", "Just name it: which needs more time to arrange, a civil funeral or a military one?", "Which takes longer to arrange, a military funeral or a civil one? List every step with its timeline.", "Which takes less time to arrange, a military funeral or a civil one? Just name it.", "Which takes longer to arrange, a Catholic funeral or a civil one in Spain? Just name it."),
    ("en", "Is the chapel available for the Wednesday service?", "Can we have the chapel for the service on Wednesday?", "Was the chapel available for the Wednesday service?", "Are both chapels available for the Wednesday service?", "Is the chapel available for the Wednesday service with livestreaming?"),
    ("en", "Order 150 printed programs for the funeral on August 2.", "Get a hundred and fifty programs printed for the funeral on the second of August.", "Don't order 150 printed programs for the funeral on August 2.", "Order 100 printed programs for the funeral on August 2.", "Order 150 printed programs for the funeral on August 12."),
    ("en", "Extend the visitation for Mr. Adeyemi by 2 hours.", "Let Mr. Adeyemi's visitation go on two hours longer.", "Extend the visitation for Mrs. Kowalski by 2 hours.", "Shorten the visitation for Mr. Adeyemi by 2 hours.", "Extend the visitation for Mr. Adeyemi by 2 days."),
    ("en", "Are oak caskets heavier than steel ones? Reply yes or no.", "Yes or no: are steel caskets lighter than oak caskets?", "Are oak caskets heavier than steel ones? Reply with weights in kilograms for each.", "Are oak caskets lighter than steel ones? Reply yes or no.", "Are bamboo caskets heavier than wicker ones? Reply yes or no."),
    # archery ranges
    ("en", "Has the range replaced the worn target butts?", "Did the worn target butts at the range get replaced?", "Is the range going to replace the worn target butts?", "Has the range replaced every worn target butt?", "Has the range replaced the worn target butts on the outdoor lanes?"),
    ("en", "Book 3 lanes for the club shoot on September 21.", "Reserve three lanes on the twenty-first of September for the club shoot.", "Please don't book 3 lanes for the club shoot on September 21.", "Book 2 lanes for the club shoot on September 21.", "Book 3 lanes for the club shoot on September 20."),
    ("en", "Increase the draw weight on Leo's bow by 5 pounds.", "Make Leo's bow five pounds heavier to draw.", "Increase the draw weight on Mia's bow by 5 pounds.", "Decrease the draw weight on Leo's bow by 5 pounds.", "Increase the draw weight on Leo's bow by 5 kilograms."),
    ("en", "Is a recurve bow harder to learn than a compound bow? Answer in one sentence.", "In one sentence: is a compound bow easier to learn than a recurve?", "Is a recurve bow harder to learn than a compound bow? Give me a week-by-week learning plan.", "Is a recurve bow easier to learn than a compound bow? Answer in one sentence.", "Is a longbow harder to learn than a crossbow for kids? Answer in one sentence."),
    ("en", "Are rental bows included with the intro lesson?", "Does the intro lesson come with a rental bow?", "Were rental bows included with the intro lesson?", "Are rental bows included with every intro lesson?", "Are rental bows included with the intro lesson for left-handed archers?"),
    ("en", "Order 24 carbon arrows for delivery on October 3.", "Get two dozen carbon arrows ordered to arrive on the third of October.", "I don't want 24 carbon arrows ordered for delivery on October 3.", "Order 36 carbon arrows for delivery on October 3.", "Order 24 carbon arrows for delivery on October 30."),
    ("en", "Move the targets on the youth lane 10 meters closer.", "Bring the youth lane's targets ten meters nearer.", "Move the targets on the adult lane 10 meters closer.", "Move the targets on the youth lane 10 meters farther away.", "Move the targets on the youth lane 10 yards closer."),
    ("en", "Are feather fletchings more forgiving than plastic vanes? Keep it short.", "Keep it short: are plastic vanes less forgiving than feather fletchings?", "Are feather fletchings more forgiving than plastic vanes? Give a full comparison table.", "Are feather fletchings less forgiving than plastic vanes? Keep it short.", "Are feather fletchings more durable than plastic vanes in the rain? Keep it short."),
    ("en", "Is the indoor range open on Sunday?", "On Sunday, can we shoot at the indoor range?", "Was the indoor range open on Sunday?", "Are both indoor ranges open on Sunday?", "Is the indoor range open on Sunday for members' guests?"),
    ("en", "Enroll 4 kids in the beginner archery course starting April 12.", "Put four children into the beginners' archery course that starts on the twelfth of April.", "Don't enroll 4 kids in the beginner archery course starting April 12.", "Enroll 5 kids in the beginner archery course starting April 12.", "Enroll 4 kids in the beginner archery course starting April 2."),
    # karaoke bars
    ("en", "Turn the microphone volume in the VIP room up by 6 decibels.", "Make the mic in the VIP room six decibels louder.", "Turn the microphone volume in the party room up by 6 decibels.", "Turn the microphone volume in the VIP room down by 6 decibels.", "Turn the microphone volume in the VIP room up by 6 percent."),
    ("en", "Is Friday busier than Saturday at the karaoke bar? One word answer.", "One-word answer: is the karaoke bar quieter on Saturday than on Friday?", "Is Friday busier than Saturday at the karaoke bar? Give me hourly crowd numbers for both nights.", "Is Friday quieter than Saturday at the karaoke bar? One word answer.", "Is Thursday busier than Saturday at the karaoke bar after midnight? One word answer."),
    ("en", "Has the bar updated its song list with this year's hits?", "Did the bar add this year's hits to its song list?", "Is the bar updating its song list with this year's hits?", "Has the bar updated both song lists with this year's hits?", "Has the bar updated its song list with this year's hits in Korean?"),
    ("en", "Reserve a room for 10 people on February 14.", "Book a karaoke room for ten on Valentine's Day.", "Don't reserve a room for 10 people on February 14.", "Reserve a room for 8 people on February 14.", "Reserve a room for 10 people on February 15."),
    ("en", "Transfer 40 dollars of bar credit from Omar's tab to Lisa's.", "Shift forty dollars in bar credit off Omar's tab onto Lisa's.", "Transfer 40 dollars of bar credit from Omar's tab to Chen's.", "Transfer 40 dollars of bar credit from Lisa's tab to Omar's.", "Transfer 40 drink tokens of bar credit from Omar's tab to Lisa's."),
    ("en", "Is singing in a private room less stressful than on the main stage? Answer briefly.", "Briefly: is singing on the main stage more stressful than in a private room?", "Is singing in a private room less stressful than on the main stage? Answer with a detailed list of tips.", "Is singing in a private room more stressful than on the main stage? Answer briefly.", "Is singing in a private room less stressful than on the main stage for beginners? Answer in detail."),
    ("en", "Is the happy hour discount still running?", "Does the happy hour discount still apply?", "Will the happy hour discount still be running?", "Are all the happy hour discounts still running?", "Is the happy hour discount still running on cocktails?"),
    ("en", "Book the stage for 3 songs at the open mic on June 6.", "Sign me up for three songs on stage at the open mic on the sixth of June.", "Please skip booking the stage for 3 songs at the open mic on June 6.", "Book the stage for 2 songs at the open mic on June 6.", "Book the stage for 3 songs at the open mic on June 16."),
    ("en", "Raise the cover charge for the Friday show by 5 dollars.", "Put the Friday show's cover charge up five dollars.", "Raise the cover charge for the Saturday show by 5 dollars.", "Lower the cover charge for the Friday show by 5 dollars.", "Raise the cover charge for the Friday show by 5 percent."),
    ("en", "Which is easier to sing, Bohemian Rhapsody or Africa? Name one.", "Name one: out of Africa and Bohemian Rhapsody, which is less difficult to sing?", "Which is easier to sing, Bohemian Rhapsody or Africa? Rate each one on range, tempo and lyrics.", "Which is harder to sing, Bohemian Rhapsody or Africa? Name one.", "Which is easier to sing, Bohemian Rhapsody or Hallelujah, for a baritone? Name one."),
    # shoe repair
    ("en", "Has the cobbler resoled my hiking boots?", "Did the cobbler put new soles on my hiking boots yet?", "Is the cobbler resoling my hiking boots?", "Has the cobbler resoled both pairs of my hiking boots?", "Has the cobbler resoled my hiking boots with Vibram soles?"),
    ("en", "Schedule a pickup of 3 pairs of heels for repair on May 20.", "On the twentieth of May, have three pairs of heels picked up for repair.", "Don't schedule a pickup of 3 pairs of heels for repair on May 20.", "Schedule a pickup of 2 pairs of heels for repair on May 20.", "Schedule a pickup of 3 pairs of heels for repair on May 21."),
    ("en", "Stretch Mrs. Ito's left boot by half a size.", "Make Mrs. Ito's left boot half a size bigger.", "Stretch Mr. Haddad's left boot by half a size.", "Shrink Mrs. Ito's left boot by half a size.", "Stretch Mrs. Ito's left boot by half an inch."),
    ("en", "Are leather soles more slippery than rubber soles? Answer yes or no.", "Yes or no: are rubber soles less slippery than leather soles?", "Are leather soles more slippery than rubber soles? Answer with grip test results on wet and dry floors.", "Are leather soles less slippery than rubber soles? Answer yes or no.", "Are crepe soles more slippery than rubber soles on ice? Answer yes or no."),
    ("en", "Does the shoe repair shop dye suede?", "Can the shoe repair place dye suede?", "Did the shoe repair shop use to dye suede?", "Does the shoe repair shop dye all kinds of suede?", "Does the shoe repair shop dye suede while you wait?"),
    ("en", "Order 5 pairs of replacement laces to pick up on July 9.", "Get five pairs of spare laces ordered for collection on the ninth of July.", "Stop, don't order 5 pairs of replacement laces to pick up on July 9.", "Order 7 pairs of replacement laces to pick up on July 9.", "Order 5 pairs of replacement laces to pick up on July 19."),
    ("en", "Put my 15-dollar repair credit toward my brother's bill.", "Apply the fifteen dollars of repair credit I have to my brother's bill.", "Put my 15-dollar repair credit toward my neighbor's bill.", "Put my brother's 15-dollar repair credit toward my bill.", "Put my 15-euro repair credit toward my brother's bill."),
    ("en", "Is resoling cheaper than buying new shoes? Just a short answer.", "Short answer only: do new shoes cost more than resoling?", "Is resoling cheaper than buying new shoes? Show me a cost breakdown over five years.", "Is resoling pricier than buying new shoes? Just a short answer.", "Is re-heeling cheaper than buying new boots? Just a short answer."),
    ("en", "Are my loafers ready for pickup?", "Can I collect my loafers now?", "Were my loafers ready for pickup?", "Are all my loafers ready for pickup?", "Are my loafers ready for pickup at the mall kiosk?"),
    ("en", "Book 2 shoe-shine slots for the wedding party on August 23.", "For the wedding party on the twenty-third of August, reserve two shoe-shine slots.", "We don't need 2 shoe-shine slots booked for the wedding party on August 23.", "Book 6 shoe-shine slots for the wedding party on August 23.", "Book 2 shoe-shine slots for the wedding party on August 13."),
    # go-kart tracks
    ("en", "Move 10 laps from my race pass to Jonas's.", "Transfer ten of the laps on my race pass over to Jonas.", "Move 10 laps from my race pass to Felix's.", "Move 10 laps from Jonas's race pass to mine.", "Move 10 minutes from my race pass to Jonas's."),
    ("en", "Are electric karts faster than petrol karts? Answer in one sentence.", "One sentence: are petrol karts slower than electric karts?", "Are electric karts faster than petrol karts? Give me lap times for both in a table.", "Are electric karts slower than petrol karts? Answer in one sentence.", "Are electric karts faster than petrol karts in the rain? Answer in detail."),
    ("en", "Has the track reopened after resurfacing?", "Is the track open again now that the resurfacing is done?", "Will the track reopen after resurfacing?", "Have both tracks reopened after resurfacing?", "Has the track reopened after resurfacing for night racing?"),
    ("en", "Book a race for 8 drivers on November 29.", "Reserve a race for eight drivers on the twenty-ninth of November.", "Never mind, don't book a race for 8 drivers on November 29.", "Book a race for 10 drivers on November 29.", "Book a race for 8 drivers on November 28."),
    ("en", "Lower the speed limiter on Ella's kart by 10 kilometers per hour.", "Set the limiter on Ella's kart ten km/h lower.", "Lower the speed limiter on Finn's kart by 10 kilometers per hour.", "Raise the speed limiter on Ella's kart by 10 kilometers per hour.", "Lower the speed limiter on Ella's kart by 10 miles per hour."),
    ("en", "Is the outdoor track longer than the indoor one? Yes or no.", "Yes or no: is the indoor track shorter than the outdoor one?", "Is the outdoor track longer than the indoor one? Give me both lengths and the number of corners.", "Is the outdoor track shorter than the indoor one? Yes or no.", "Is the outdoor track wider than the junior one? Yes or no."),
    ("en", "Are helmets provided with the arrive-and-drive session?", "Does the arrive-and-drive session come with a helmet?", "Were helmets provided with the arrive-and-drive session?", "Are helmets provided with every arrive-and-drive session?", "Are helmets provided with the arrive-and-drive session in child sizes?"),
    ("en", "Sign up 6 of us for the endurance race on March 22.", "Put six of us down for the endurance race on the twenty-second of March.", "I'd rather you didn't sign up 6 of us for the endurance race on March 22.", "Sign up 7 of us for the endurance race on March 22.", "Sign up 6 of us for the endurance race on March 23."),
    ("en", "Move the Chen birthday race 2 hours earlier.", "Bring the Chen birthday race forward by two hours.", "Move the Murphy birthday race 2 hours earlier.", "Move the Chen birthday race 2 hours later.", "Move the Chen birthday race 2 days earlier."),
    ("en", "Is the junior kart safer than the adult kart for a 12-year-old? Answer in a sentence.", "In a sentence: for a 12-year-old, is the adult kart riskier than the junior kart?", "Is the junior kart safer than the adult kart for a 12-year-old? List the safety features of each.", "Is the junior kart less safe than the adult kart for a 12-year-old? Answer in a sentence.", "Is the junior kart safer than the tandem kart for a 9-year-old? Answer in a sentence."),
    # butcher shops
    ("en", "Has the butcher dry-aged the ribeye I ordered?", "Is the ribeye I ordered from the butcher dry-aged yet?", "Is the butcher dry-aging the ribeye I ordered?", "Has the butcher dry-aged both ribeyes I ordered?", "Has the butcher dry-aged the ribeye I ordered for 45 days?"),
    ("en", "Order 3 kilos of lamb mince for pickup on June 13.", "For collection on the thirteenth of June, order three kilos of minced lamb.", "Please don't order 3 kilos of lamb mince for pickup on June 13.", "Order 4 kilos of lamb mince for pickup on June 13.", "Order 3 kilos of lamb mince for pickup on June 30."),
    ("en", "Cut Mr. Ferreira's pork chops 1 centimeter thicker.", "Make Mr. Ferreira's pork chops a centimeter thicker.", "Cut Mrs. Dunn's pork chops 1 centimeter thicker.", "Cut Mr. Ferreira's pork chops 1 centimeter thinner.", "Cut Mr. Ferreira's pork chops 1 inch thicker."),
    ("en", "Is grass-fed beef leaner than grain-fed beef? Reply in one line.", "One line: is grain-fed beef fattier than grass-fed beef?", "Is grass-fed beef leaner than grain-fed beef? Reply with fat per 100 grams in a table.", "Is grass-fed beef fattier than grain-fed beef? Reply in one line.", "Is grass-fed lamb leaner than grain-fed lamb for stews? Reply in one line."),
    ("en", "Does the butcher sell halal chicken?", "Can I buy halal chicken at the butcher's?", "Did the butcher use to sell halal chicken?", "Is all the chicken the butcher sells halal?", "Does the butcher sell halal chicken on Mondays?"),
    ("en", "Reserve a 6-kilo turkey for December 23.", "Put aside a six-kilogram turkey for the twenty-third of December.", "Don't reserve a 6-kilo turkey for December 23.", "Reserve an 8-kilo turkey for December 23.", "Reserve a 6-kilo turkey for December 24."),
    ("en", "Add 2 pounds of bacon to the Mendes order.", "Put two more pounds of bacon on the Mendes order.", "Add 2 pounds of bacon to the Gallagher order.", "Remove 2 pounds of bacon from the Mendes order.", "Add 2 kilos of bacon to the Mendes order."),
    ("en", "Which is more tender, flank steak or skirt steak? Short answer.", "Short answer: which is less tough, skirt steak or flank steak?", "Which is more tender, flank steak or skirt steak? Explain with cooking times for each.", "Which is less tender, flank steak or skirt steak? Short answer.", "Which is more tender, hanger steak or skirt steak when grilled? Short answer."),
    ("en", "Is the sausage counter open today?", "Can I buy from the sausage counter today?", "Was the sausage counter open today?", "Are both sausage counters open today?", "Is the sausage counter open today until 8 p.m.?"),
    ("en", "Order 20 burger patties for the barbecue on July 26.", "Get twenty burger patties for the barbecue on the twenty-sixth of July.", "Hold on, don't order 20 burger patties for the barbecue on July 26.", "Order 30 burger patties for the barbecue on July 26.", "Order 20 burger patties for the barbecue on July 25."),
    # chimney sweeps
    ("en", "Move the chimney sweep's visit to the Haas cottage 3 days earlier.", "Bring the sweep's visit to the Haas cottage forward three days.", "Move the chimney sweep's visit to the Moreau cottage 3 days earlier.", "Move the chimney sweep's visit to the Haas cottage 3 days later.", "Move the chimney sweep's visit to the Haas cottage 3 weeks earlier."),
    ("en", "Does burning softwood cause more soot than hardwood? Yes or no.", "Yes or no: does hardwood leave less soot than softwood when burned?", "Does burning softwood cause more soot than hardwood? Include creosote figures for each wood.", "Does burning softwood cause less soot than hardwood? Yes or no.", "Does burning pellets cause more soot than hardwood in a stove? Yes or no."),
    ("en", "Has the sweep inspected the flue liner?", "Did the sweep check the flue liner?", "Is the sweep going to inspect the flue liner?", "Has the sweep inspected every flue liner?", "Has the sweep inspected the flue liner with a camera?"),
    ("en", "Book a sweep of 2 chimneys for October 15.", "On the fifteenth of October, have two chimneys swept.", "You shouldn't book a sweep of 2 chimneys for October 15.", "Book a sweep of 3 chimneys for October 15.", "Book a sweep of 2 chimneys for October 5."),
    ("en", "Charge the Lindqvist household 120 dollars for the cap installation.", "Bill the Lindqvist household a hundred and twenty dollars for putting in the chimney cap.", "Charge the Abara household 120 dollars for the cap installation.", "Refund the Lindqvist household 120 dollars for the cap installation.", "Charge the Lindqvist household 120 kronor for the cap installation."),
    ("en", "Is a gas fireplace cleaner than a wood stove? Give a one-sentence answer.", "One-sentence answer: does a wood stove burn dirtier than a gas fireplace?", "Is a gas fireplace cleaner than a wood stove? Give a full emissions comparison.", "Is a gas fireplace dirtier than a wood stove? Give a one-sentence answer.", "Is a pellet stove cleaner than a wood stove in a small cabin? Give a one-sentence answer."),
    ("en", "Is the chimney safe to use again?", "Can we safely use the chimney again?", "Will the chimney be safe to use again?", "Are both chimneys safe to use again?", "Is the chimney safe to use again for a wood fire?"),
    ("en", "Order 4 bird guards for the chimneys, delivered by November 7.", "Have four bird guards for the chimneys delivered by the seventh of November.", "No need to order 4 bird guards for the chimneys, delivered by November 7.", "Order 5 bird guards for the chimneys, delivered by November 7.", "Order 4 bird guards for the chimneys, delivered by November 17."),
    ("en", "Raise the chimney cap on the Pereira house by 10 centimeters.", "Lift the Pereira house's chimney cap ten centimeters higher.", "Raise the chimney cap on the Sato house by 10 centimeters.", "Lower the chimney cap on the Pereira house by 10 centimeters.", "Raise the chimney cap on the Pereira house by 10 inches."),
    ("en", "Which needs sweeping more often, an oil furnace flue or a wood stove flue? Name one.", "Name one: which flue must be swept more frequently, a wood stove's or an oil furnace's?", "Which needs sweeping more often, an oil furnace flue or a wood stove flue? Give a yearly schedule for each.", "Which needs sweeping less often, an oil furnace flue or a wood stove flue? Name one.", "Which needs sweeping more often, a gas boiler flue or an open fireplace flue? Name one."),
    # German
    ("de", "Hat die Werkstatt die Winterreifen schon aufgezogen?", "Sind die Winterreifen in der Werkstatt schon montiert worden?", "Wird die Werkstatt die Winterreifen aufziehen?", "Hat die Werkstatt schon alle Winterreifen aufgezogen?", "Hat die Werkstatt die Winterreifen schon aufgezogen und ausgewuchtet?"),
    ("de", "Reservier 4 Plätze im Restaurant für den 12. Mai.", "Für den zwölften Mai bitte vier Plätze im Restaurant reservieren.", "Reservier bitte doch nicht 4 Plätze im Restaurant für den 12. Mai.", "Reservier 6 Plätze im Restaurant für den 12. Mai.", "Reservier 4 Plätze im Restaurant für den 13. Mai."),
    # French
    ("fr", "Vire 50 euros de mon compte sur celui de Camille.", "Transfère cinquante euros de mon compte vers le compte de Camille.", "Vire 50 euros de mon compte sur celui de Julien.", "Vire 50 euros du compte de Camille sur le mien.", "Vire 50 francs suisses de mon compte sur celui de Camille."),
    ("fr", "Le vélo est-il plus rapide que le bus pour aller au travail ? Réponds en une phrase.", "En une phrase : pour aller au travail, le bus est-il plus lent que le vélo ?", "Le vélo est-il plus rapide que le bus pour aller au travail ? Fais-moi un tableau des temps de trajet.", "Le vélo est-il plus lent que le bus pour aller au travail ? Réponds en une phrase.", "La trottinette est-elle plus rapide que le bus pour aller à l'école ? Réponds en une phrase."),
    # Spanish
    ("es", "¿Ha llegado ya el paquete de Amazon?", "¿Ya me ha llegado el paquete de Amazon?", "¿Llegará el paquete de Amazon?", "¿Han llegado ya todos los paquetes de Amazon?", "¿Ha llegado ya el paquete de Amazon a la oficina?"),
    ("es", "Pide 2 bombonas de butano para el 14 de febrero.", "Para el día de San Valentín, encarga dos bombonas de butano.", "No pidas 2 bombonas de butano para el 14 de febrero.", "Pide 3 bombonas de butano para el 14 de febrero.", "Pide 2 bombonas de butano para el 4 de febrero."),
    # Portuguese
    ("pt", "Transfere 100 reais da minha conta para a da Beatriz.", "Manda cem reais da minha conta para a conta da Beatriz.", "Transfere 100 reais da minha conta para a do Rafael.", "Transfere 100 reais da conta da Beatriz para a minha.", "Transfere 100 euros da minha conta para a da Beatriz."),
    ("pt", "O metrô é mais barato que o Uber para ir ao aeroporto? Responda com sim ou não.", "Responda com sim ou não: ir de Uber ao aeroporto sai mais caro que ir de metrô?", "O metrô é mais barato que o Uber para ir ao aeroporto? Me dê uma tabela com preços e tempos.", "O metrô é mais caro que o Uber para ir ao aeroporto? Responda com sim ou não.", "O ônibus é mais barato que o Uber para ir à rodoviária? Responda com sim ou não."),
    # Italian
    ("it", "Il medico ha già firmato il certificato per la palestra?", "Il certificato per la palestra è già stato firmato dal medico?", "Il medico firmerà il certificato per la palestra?", "Il medico ha già firmato tutti i certificati per la palestra?", "Il medico ha già firmato il certificato per la palestra con il timbro?"),
    ("it", "Prenota 2 posti sul traghetto per il 10 agosto.", "Per il dieci agosto prenotami due posti sul traghetto.", "Non prenotare 2 posti sul traghetto per il 10 agosto.", "Prenota 3 posti sul traghetto per il 10 agosto.", "Prenota 2 posti sul traghetto per l'11 agosto."),
    # Azerbaijani
    ("az", "Kartımdan anama 50 manat köçür.", "Mənim kartımdan anama əlli manat göndər.", "Kartımdan bacıma 50 manat köçür.", "Anamın kartından mənə 50 manat köçür.", "Kartımdan anama 50 dollar köçür."),
    ("az", "Bakıda metro avtobusdan sürətlidirmi? Bir cümlə ilə cavab ver.", "Bir cümlə ilə de: Bakıda avtobus metrodan yavaşdırmı?", "Bakıda metro avtobusdan sürətlidirmi? Vaxtları cədvəl şəklində göstər.", "Bakıda metro avtobusdan yavaşdırmı? Bir cümlə ilə cavab ver.", "Axşam saatlarında Bakıda taksi avtobusdan sürətlidirmi? Bir cümlə ilə cavab ver."),
    # Macedonian
    ("mk", "Дали мајсторот веќе го поправи бојлерот?", "Дали бојлерот е веќе поправен од мајсторот?", "Дали мајсторот ќе го поправи бојлерот?", "Дали мајсторот веќе ги поправи двата бојлери?", "Дали мајсторот веќе го поправи бојлерот во купатилото?"),
    ("mk", "Резервирај 2 билети за автобусот до Охрид за 5 јули.", "За петти јули резервирај два билети за автобусот до Охрид.", "Не резервирај 2 билети за автобусот до Охрид за 5 јули.", "Резервирај 4 билети за автобусот до Охрид за 5 јули.", "Резервирај 2 билети за автобусот до Охрид за 15 јули."),
    # Basque
    ("eu", "Bidali 20 euro nire kontutik Mikelen kontura.", "Transferitu hogei euro Mikelen kontura nire kontutik.", "Bidali 20 euro nire kontutik Amaiaren kontura.", "Bidali 20 euro Mikelen kontutik nire kontura.", "Bidali 20 dolar nire kontutik Mikelen kontura."),
    ("eu", "Trena autobusa baino merkeagoa da Bilbora joateko? Erantzun bai edo ez.", "Erantzun bai edo ez: autobusa trena baino garestiagoa da Bilbora joateko?", "Trena autobusa baino merkeagoa da Bilbora joateko? Eman prezioen taula bat.", "Trena autobusa baino garestiagoa da Bilbora joateko? Erantzun bai edo ez.", "Autoa autobusa baino merkeagoa da Gasteizera joateko? Erantzun bai edo ez."),
    # Albanian
    ("sq", "A e ka rregulluar hidrauliku rubinetin e kuzhinës?", "A është rregulluar rubineti i kuzhinës nga hidrauliku?", "A do ta rregullojë hidrauliku rubinetin e kuzhinës?", "A i ka rregulluar hidrauliku të gjitha rubinetat e kuzhinës?", "A e ka rregulluar hidrauliku rubinetin e kuzhinës pa e ndërruar?"),
    ("sq", "Rezervo 3 bileta për autobusin e Durrësit më 8 qershor.", "Për tetë qershor, më rezervo tri bileta për autobusin e Durrësit.", "Mos rezervo 3 bileta për autobusin e Durrësit më 8 qershor.", "Rezervo 5 bileta për autobusin e Durrësit më 8 qershor.", "Rezervo 3 bileta për autobusin e Durrësit më 18 qershor."),
    # Esperanto
    ("eo", "Transdonu 30 eŭrojn de mia konto al la konto de Anna.", "Sendu tridek eŭrojn el mia konto al tiu de Anna.", "Transdonu 30 eŭrojn de mia konto al la konto de Petro.", "Transdonu 30 eŭrojn de la konto de Anna al mia konto.", "Transdonu 30 dolarojn de mia konto al la konto de Anna."),
    ("eo", "Ĉu la trajno estas pli rapida ol la aŭtobuso al Varsovio? Respondu per unu frazo.", "Per unu frazo: ĉu la aŭtobuso al Varsovio estas pli malrapida ol la trajno?", "Ĉu la trajno estas pli rapida ol la aŭtobuso al Varsovio? Donu tabelon kun la vojaĝdaŭroj.", "Ĉu la trajno estas pli malrapida ol la aŭtobuso al Varsovio? Respondu per unu frazo.", "Ĉu la aviadilo estas pli rapida ol la aŭtobuso al Krakovo? Respondu per unu frazo."),
]  # fmt: skip


def pairs() -> list[dict[str, object]]:
    """The 400 pairs, in a fixed order (built as set #3's, with its cycle of kinds)."""
    return build(ITEMS, DOMAINS, "errands", "j")


def main() -> None:
    write(pairs(), OUT)


if __name__ == "__main__":
    main()
