# ruff: noqa: E501, RUF001  (one hand-written item a line, in six languages: the data reads best as typed)
"""Build ``benchmarks/reuse_heldout3.jsonl``: the third held-out set of reuse by meaning.

Method (also in ``benchmarks/RESULTS.md``, "held-out set #3"), fixed and committed before
the verifier of issue #34's third round was changed and before any evaluation on it:

- 100 hand-written base requests: 80 in English, 10 in each of 8 domains none of the earlier
  sets covers (home repair, public transport, books and libraries, weather alerts and climate,
  shipping and parcels, energy and utilities, clothing, parenting and childcare); 20 (everyday
  errands) not in English, 4 each in German, Spanish, Russian, Chinese and Japanese (20%).
  Other base requests and other phrasings than the calibration set and sets #1/#2.
- Each gives one should-reuse pair (a hand-written paraphrase: other words or word order, number
  words for digits, fronted clauses, passives; same meaning, same answer) and three must-not
  pairs (a variant changing one element, or two for "two_edits").
- The kinds follow a fixed cycle of twelve, the issue's list: item i's variants are kinds
  ``CYCLE[(3i + j) % 12]``, j = 0, 1, 2, so 25 must-not pairs of each kind. Numbers are written
  as digits, English number words (forty, sixty, seventy, ninety among them, each with a second
  edit), full-width and Arabic-Indic digits and Chinese numerals.
- 100 should-reuse and 300 must-not pairs, rendered like the other sets (the same system prompt,
  one human message): same record format, same ``request()`` and writer as set #1.

Run ``python -m benchmarks.reuse_heldout3_gen``.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.reuse_heldout_gen import request, write

OUT = Path(__file__).with_name("reuse_heldout3.jsonl")
# Item i's three must-not variants are of kinds CYCLE[(3i + j) % 12], j = 0, 1, 2: items
# i = 0, 1, 2, 3 (mod 4) change (tense, quantifier, constraint), (negation, number, date),
# (entity, direction, unit), (format, comparative, two_edits).
CYCLE = (
    "tense", "quantifier", "constraint", "negation", "number", "date",
    "entity", "direction", "unit", "format", "comparative", "two_edits",
)  # fmt: skip
DOMAINS = (
    "home_repair", "public_transport", "books_libraries", "weather", "shipping",
    "energy_utilities", "clothing", "parenting",
)  # fmt: skip

# (language, request, paraphrase, variant 1, variant 2, variant 3), ten a domain.
ITEMS: list[tuple[str, str, str, str, str, str]] = [
    # home repair
    ("en", "Is the bathroom faucet still leaking?", "Does the bathroom tap still leak?", "Was the bathroom faucet still leaking?", "Are all the bathroom faucets still leaking?", "Is the bathroom faucet still leaking after the washer was replaced?"),
    ("en", "Order 6 hinges for the kitchen cabinets by June 14.", "Get six hinges for the kitchen cabinets ordered by June 14.", "Don't order 6 hinges for the kitchen cabinets by June 14.", "Order 16 hinges for the kitchen cabinets by June 14.", "Order 6 hinges for the kitchen cabinets by June 24."),
    ("en", "Raise the Velux skylight blind by 30 centimeters.", "Lift the Velux skylight blind 30 centimeters higher.", "Raise the Fakro skylight blind by 30 centimeters.", "Lower the Velux skylight blind by 30 centimeters.", "Raise the Velux skylight blind by 30 inches."),
    ("en", "Which is cheaper for a kitchen wall, latex or oil paint? Answer in a table.", "In a table, tell me whether latex or oil paint costs less for a kitchen wall.", "Which is cheaper for a kitchen wall, latex or oil paint? Answer in one sentence.", "Which is more expensive for a kitchen wall, latex or oil paint? Answer in a table.", "Which is cheaper for a bathroom ceiling, latex or oil paint? Answer in a table."),
    ("en", "Has the plumber fixed the water heater?", "Has the water heater been repaired by the plumber?", "Will the plumber fix the water heater?", "Has the plumber fixed both water heaters?", "Has the plumber fixed the water heater in the guest house?"),
    ("en", "Schedule the gutter cleaning for 2 pm on April 9.", "Book the gutter cleaning on April 9 at 2 pm.", "Don't schedule the gutter cleaning for 2 pm on April 9.", "Schedule the gutter cleaning for ４ pm on April 9.", "Schedule the gutter cleaning for 2 pm on April 19."),
    ("en", "Turn the thermostat in Anna's room up by 3 degrees Celsius.", "Increase the temperature in Anna's room by 3 degrees Celsius on the thermostat.", "Turn the thermostat in Marco's room up by 3 degrees Celsius.", "Turn the thermostat in Anna's room down by 3 degrees Celsius.", "Turn the thermostat in Anna's room up by 3 degrees Fahrenheit."),
    ("en", "What is a faster way to unclog a sink than a plunger? Give numbered steps.", "Give numbered steps for a quicker way than a plunger to unclog a sink.", "What is a faster way to unclog a sink than a plunger? Give one short paragraph.", "What is a cheaper way to unclog a sink than a plunger? Give numbered steps.", "What is a faster way to unclog a shower drain than a snake? Give numbered steps."),
    ("en", "Is the paint on the garage door dry?", "Has the paint on the garage door dried?", "Was the paint on the garage door dry?", "Is the paint on every garage door dry?", "Is the paint on the garage door dry enough for a second coat?"),
    ("en", "Replace 4 light bulbs in the hallway on Tuesday.", "On Tuesday, swap out four light bulbs in the hallway.", "Do not replace 4 light bulbs in the hallway on Tuesday.", "Replace ٥ light bulbs in the hallway on Tuesday.", "Replace 4 light bulbs in the hallway on Thursday."),
    # public transport
    ("en", "How often do outbound Blue Line trains run in the evening, in minutes?", "In minutes, what is the evening frequency of outbound Blue Line trains?", "How often do outbound Green Line trains run in the evening, in minutes?", "How often do inbound Blue Line trains run in the evening, in minutes?", "How often do outbound Blue Line trains run in the evening, in trains per hour?"),
    ("en", "Show bus connections from Leeds to York under 10 pounds as a table.", "In a table, list bus connections from Leeds to York costing less than 10 pounds.", "Show bus connections from Leeds to York under 10 pounds as plain text.", "Show bus connections from Leeds to York over 10 pounds as a table.", "Show bus connections from Leeds to Hull under 12 pounds as a table."),
    ("en", "Is the number 14 tram running on schedule?", "Is tram number 14 on time?", "Was the number 14 tram running on schedule?", "Are all the trams running on schedule?", "Is the number 14 tram running on schedule during the strike?"),
    ("en", "Buy 2 day passes for the Paris metro for March 3.", "Get me two Paris metro day passes for March 3.", "Don't buy 2 day passes for the Paris metro for March 3.", "Buy 20 day passes for the Paris metro for March 3.", "Buy 2 day passes for the Paris metro for March 30."),
    ("en", "Move 20 euros of credit from my Oyster card to my Navigo card.", "Transfer 20 euros of credit from the Oyster card to the Navigo card.", "Move 20 euros of credit from my Oyster card to my Clipper card.", "Move 20 euros of credit from my Navigo card to my Oyster card.", "Move 20 pounds of credit from my Oyster card to my Navigo card."),
    ("en", "Which is quicker to the stadium, the subway or the bus? Reply in one sentence.", "In one sentence: is the subway or the bus faster for getting to the stadium?", "Which is quicker to the stadium, the subway or the bus? Reply with a table of travel times.", "Which is cheaper to the stadium, the subway or the bus? Reply in one sentence.", "Which is quicker to the airport, the subway or the taxi? Reply in one sentence."),
    ("en", "Is the ferry to Capri leaving on time?", "Will the Capri ferry depart on time?", "Did the ferry to Capri leave on time?", "Are all the ferries to Capri leaving on time?", "Is the ferry to Capri leaving on time despite the wind warning?"),
    ("en", "Reserve 3 seats on the 7:40 train to Bologna on Friday.", "Book three seats on Friday's 7:40 train to Bologna.", "Don't reserve 3 seats on the 7:40 train to Bologna on Friday.", "Reserve 3 seats on the 8:40 train to Bologna on Friday.", "Reserve 3 seats on the 7:40 train to Bologna on Sunday."),
    ("en", "How many minutes until the next northbound 6 train at Union Square?", "In minutes, when does the next northbound 6 train reach Union Square?", "How many minutes until the next northbound 6 train at Grand Central?", "How many minutes until the next southbound 6 train at Union Square?", "How many seconds until the next northbound 6 train at Union Square?"),
    ("en", "Is a monthly pass cheaper than 40 single tickets? Answer yes or no.", "Answer yes or no: does a monthly pass cost less than 40 single tickets?", "Is a monthly pass cheaper than 40 single tickets? Explain the math in detail.", "Is a monthly pass more expensive than 40 single tickets? Answer yes or no.", "Is a yearly pass cheaper than seventy single tickets? Answer yes or no."),
    # books and libraries
    ("en", "Is the new Murakami novel available at the library?", "Can I borrow the new Murakami novel from the library?", "Was the new Murakami novel available at the library?", "Are all the Murakami novels available at the library?", "Is the new Murakami novel available at the library as an audiobook?"),
    ("en", "Renew my 3 borrowed books until May 30.", "Extend the loan on my three borrowed books to May 30.", "Don't renew my 3 borrowed books until May 30.", "Renew my 13 borrowed books until May 30.", "Renew my 3 borrowed books until May 13."),
    ("en", "Shift the Tolkien display 2 meters to the left.", "Move the Tolkien display two meters to the left.", "Shift the Pratchett display 2 meters to the left.", "Shift the Tolkien display 2 meters to the right.", "Shift the Tolkien display 2 feet to the left."),
    ("en", "Which is longer, War and Peace or Les Misérables? Answer with page counts in a table.", "In a table with page counts: is War and Peace or Les Misérables longer?", "Which is longer, War and Peace or Les Misérables? Answer with a single word.", "Which is shorter, War and Peace or Les Misérables? Answer with page counts in a table.", "Which is longer, Middlemarch or Moby-Dick? Answer with page counts in a table."),
    ("en", "Has my interlibrary loan request been approved?", "Is my interlibrary loan request approved yet?", "Will my interlibrary loan request be approved?", "Have all my interlibrary loan requests been approved?", "Has my interlibrary loan request for the rare edition been approved?"),
    ("en", "Book a study room for 2 hours on November 4.", "Reserve a study room on November 4 for two hours.", "Don't book a study room for 2 hours on November 4.", "Book a study room for twelve hours on November 4.", "Book a study room for 2 hours on November 14."),
    ("en", "Raise the font size on my Kindle by 2 points.", "Make the font on my Kindle 2 points bigger.", "Raise the font size on my Kobo by 2 points.", "Reduce the font size on my Kindle by 2 points.", "Raise the font size on my Kindle by 2 percent."),
    ("en", "Recommend three novels longer than 500 pages as a bulleted list.", "As a bulleted list, suggest three novels of more than 500 pages.", "Recommend three novels longer than 500 pages in a single paragraph.", "Recommend three novels shorter than 500 pages as a bulleted list.", "Recommend forty novels longer than 900 pages as a bulleted list."),
    ("en", "Is the reading room quiet right now?", "Is it quiet in the reading room at the moment?", "Was the reading room quiet?", "Are all the reading rooms quiet right now?", "Is the reading room quiet enough for a phone call right now?"),
    ("en", "Return the 2 DVDs to the library by October 8.", "Bring the two DVDs back to the library by October 8.", "Don't return the 2 DVDs to the library by October 8.", "Return the ２２ DVDs to the library by October 8.", "Return the 2 DVDs to the library by October 18."),
    # weather alerts and climate
    ("en", "Will the temperature in Oslo rise by more than 5 degrees Celsius tomorrow?", "Tomorrow, will Oslo's temperature go up by more than 5 degrees Celsius?", "Will the temperature in Bergen rise by more than 5 degrees Celsius tomorrow?", "Will the temperature in Oslo drop by more than 5 degrees Celsius tomorrow?", "Will the temperature in Oslo rise by more than 5 degrees Fahrenheit tomorrow?"),
    ("en", "Is it warmer in Madrid than in Lisbon today? Answer in one word.", "Answer in one word: is Madrid warmer than Lisbon today?", "Is it warmer in Madrid than in Lisbon today? Give a full forecast for both.", "Is it colder in Madrid than in Lisbon today? Answer in one word.", "Is it warmer in Seville than in Porto today? Answer in one word."),
    ("en", "Is it snowing in Innsbruck?", "Is snow falling in Innsbruck?", "Did it snow in Innsbruck?", "Is it snowing in all of Innsbruck's districts?", "Is it snowing in Innsbruck above 2,000 meters?"),
    ("en", "Send me a storm warning if gusts exceed 80 km/h on Sunday.", "On Sunday, alert me about storms when gusts go above 80 km/h.", "Don't send me a storm warning if gusts exceed 80 km/h on Sunday.", "Send me a storm warning if gusts exceed 60 km/h on Sunday.", "Send me a storm warning if gusts exceed 80 km/h on Monday."),
    ("en", "How many hours of daylight does Reykjavik gain per week in March?", "In March, by how many hours does daylight in Reykjavik increase each week?", "How many hours of daylight does Tromsø gain per week in March?", "How many hours of daylight does Reykjavik lose per week in March?", "How many minutes of daylight does Reykjavik gain per week in March?"),
    ("en", "Will tomorrow be hotter than today in Rome? Reply with a table of highs.", "Reply with a table of highs: is tomorrow going to be hotter than today in Rome?", "Will tomorrow be hotter than today in Rome? Reply with yes or no.", "Will tomorrow be cooler than today in Rome? Reply with a table of highs.", "Will Friday be hotter than today in Naples? Reply with a table of highs."),
    ("en", "Has the flood warning for the Danube been lifted?", "Has the Danube flood warning been cancelled?", "Will the flood warning for the Danube be lifted?", "Have all the flood warnings for the Danube been lifted?", "Has the flood warning for the Danube been lifted for Vienna?"),
    ("en", "Remind me to cover the plants if it drops below 2 degrees on January 12.", "On January 12, remind me to cover the plants if the temperature falls under 2 degrees.", "Remind me not to cover the plants if it drops below 2 degrees on January 12.", "Remind me to cover the plants if it drops below 5 degrees on January 12.", "Remind me to cover the plants if it drops below 2 degrees on January 21."),
    ("en", "Convert 30 degrees Celsius to Fahrenheit for the Phoenix forecast.", "For the Phoenix forecast, what is 30 degrees Celsius in Fahrenheit?", "Convert 30 degrees Celsius to Fahrenheit for the Tucson forecast.", "Convert 30 degrees Fahrenheit to Celsius for the Phoenix forecast.", "Convert 30 degrees Celsius to Kelvin for the Phoenix forecast."),
    ("en", "List the months in Mumbai with more than 100 mm of rain, most rain first.", "Which months in Mumbai get over 100 mm of rain? Sort them wettest first.", "List the months in Mumbai with more than 100 mm of rain as a JSON array, most rain first.", "List the months in Mumbai with less than 100 mm of rain, most rain first.", "List the months in Chennai with more than ninety mm of rain, most rain first."),
    # shipping and parcels
    ("en", "Is my DHL parcel out for delivery?", "Has my DHL package been sent out for delivery?", "Was my DHL parcel out for delivery?", "Are all my DHL parcels out for delivery?", "Is my DHL parcel from Shenzhen out for delivery?"),
    ("en", "Schedule a pickup of 5 boxes on August 2.", "Arrange for five boxes to be picked up on August 2.", "Don't schedule a pickup of 5 boxes on August 2.", "Schedule a pickup of ５０ boxes on August 2.", "Schedule a pickup of 5 boxes on August 12."),
    ("en", "Send the package from Rotterdam to Antwerp by UPS, weight 12 kilograms.", "Ship the 12-kilogram package from Rotterdam to Antwerp with UPS.", "Send the package from Rotterdam to Antwerp by FedEx, weight 12 kilograms.", "Send the package from Antwerp to Rotterdam by UPS, weight 12 kilograms.", "Send the package from Rotterdam to Antwerp by UPS, weight 12 pounds."),
    ("en", "Which is faster to Japan, airmail or express courier? Answer in a table.", "In a table, compare whether airmail or express courier reaches Japan faster.", "Which is faster to Japan, airmail or express courier? Answer in one sentence.", "Which is slower to Japan, airmail or express courier? Answer in a table.", "Which is faster to Korea, sea freight or express courier? Answer in a table."),
    ("en", "Has the customs declaration for my parcel been filed?", "Did someone file the customs declaration for my parcel?", "Will the customs declaration for my parcel be filed?", "Have the customs declarations for all my parcels been filed?", "Has the customs declaration for my parcel been filed electronically?"),
    ("en", "Insure the shipment for 500 dollars before July 1.", "Before July 1, put 500 dollars of insurance on the shipment.", "Don't insure the shipment for 500 dollars before July 1.", "Insure the shipment for 800 dollars before July 1.", "Insure the shipment for 500 dollars before July 11."),
    ("en", "Increase the declared value of my Amazon parcel by 50 euros.", "Raise my Amazon parcel's declared value by 50 euros.", "Increase the declared value of my eBay parcel by 50 euros.", "Decrease the declared value of my Amazon parcel by 50 euros.", "Increase the declared value of my Amazon parcel by 50 dollars."),
    ("en", "Is shipping to Chile more expensive than shipping to Peru? Give prices as a list.", "Give prices as a list: does it cost more to ship to Chile than to Peru?", "Is shipping to Chile more expensive than shipping to Peru? Answer yes or no.", "Is shipping to Chile cheaper than shipping to Peru? Give prices as a list.", "Is shipping to Argentina more expensive than shipping to Bolivia? Give prices as a list."),
    ("en", "Is the post office on King Street accepting parcels today?", "Does the King Street post office take parcels today?", "Did the post office on King Street accept parcels today?", "Are all the post offices on King Street accepting parcels today?", "Is the post office on King Street accepting parcels over 30 kilograms today?"),
    ("en", "Print 8 shipping labels for the order from September 5.", "Print eight shipping labels for the September 5 order.", "Don't print 8 shipping labels for the order from September 5.", "Print 18 shipping labels for the order from September 5.", "Print 8 shipping labels for the order from September 15."),
    # energy and utilities
    ("en", "How much electricity did the home battery charge from the grid in kilowatt-hours?", "In kilowatt-hours, how much power did the home battery charge from the grid?", "How much electricity did the car battery charge from the grid in kilowatt-hours?", "How much electricity did the home battery discharge to the grid in kilowatt-hours?", "How much electricity did the home battery charge from the grid in megawatt-hours?"),
    ("en", "Is my electricity bill higher than last month's? Answer in one sentence.", "In one sentence: is this electricity bill higher than the one from last month?", "Is my electricity bill higher than last month's? Show a chart of both.", "Is my electricity bill lower than last month's? Answer in one sentence.", "Is my gas bill higher than last year's? Answer in one sentence."),
    ("en", "Is the power back on in Riverside?", "Has the electricity been restored in Riverside?", "Will the power be back on in Riverside?", "Is the power back on in all of Riverside?", "Is the power back on in Riverside for the houses on the hill?"),
    ("en", "Pay the water bill of 64 euros on February 27.", "On February 27, pay the 64-euro water bill.", "Don't pay the water bill of 64 euros on February 27.", "Pay the water bill of 46 euros on February 27.", "Pay the water bill of 64 euros on February 7."),
    ("en", "Set the Tesla Powerwall to export 3 kilowatts to the grid.", "Have the Tesla Powerwall send 3 kilowatts to the grid.", "Set the Sonnen battery to export 3 kilowatts to the grid.", "Set the Tesla Powerwall to import 3 kilowatts from the grid.", "Set the Tesla Powerwall to export 3 kilowatt-hours to the grid."),
    ("en", "Which EDF tariff is cheaper for 3,000 kWh a year, fixed or variable? Answer with a table.", "Answer with a table: for 3,000 kWh a year, is EDF's fixed or variable tariff cheaper?", "Which EDF tariff is cheaper for 3,000 kWh a year, fixed or variable? Answer with one word.", "Which EDF tariff is more expensive for 3,000 kWh a year, fixed or variable? Answer with a table.", "Which Engie tariff is cheaper for 4,500 kWh a year, fixed or variable? Answer with a table."),
    ("en", "Is the meter reader coming this week?", "Will the meter reader visit this week?", "Did the meter reader come this week?", "Is the meter reader coming to every flat this week?", "Is the meter reader coming this week before noon?"),
    ("en", "Set the hot water to 55 degrees from December 1.", "From December 1, set the hot water temperature to 55 degrees.", "Don't set the hot water to 55 degrees from December 1.", "Set the hot water to ６５ degrees from December 1.", "Set the hot water to 55 degrees from December 10."),
    ("en", "Transfer 40 pounds of credit from the gas meter to the electricity meter.", "Move 40 pounds of credit off the gas meter onto the electricity meter.", "Transfer 40 pounds of credit from the gas meter to the water meter.", "Transfer 40 pounds of credit from the electricity meter to the gas meter.", "Transfer 40 euros of credit from the gas meter to the electricity meter."),
    ("en", "Do heat pumps use less electricity than electric boilers? Reply in two sentences.", "Reply in two sentences: is the electricity use of heat pumps lower than that of electric boilers?", "Do heat pumps use less electricity than electric boilers? Reply with a comparison table.", "Do heat pumps use more electricity than electric boilers? Reply in two sentences.", "Do gas boilers use less electricity than oil boilers? Reply in two sentences."),
    # clothing
    ("en", "Is the blue linen shirt in stock?", "Do you have the blue linen shirt available?", "Was the blue linen shirt in stock?", "Are all the blue linen shirts in stock?", "Is the blue linen shirt in stock in size XL?"),
    ("en", "Return the 2 pairs of jeans I bought on June 6.", "I want to send back the two pairs of jeans I purchased on June 6.", "Don't return the 2 pairs of jeans I bought on June 6.", "Return the 3 pairs of jeans I bought on June 6.", "Return the 2 pairs of jeans I bought on June 9."),
    ("en", "Convert my shoe size 42 from EU to US sizes for Nike.", "For Nike, what is EU shoe size 42 in US sizes?", "Convert my shoe size 42 from EU to US sizes for Adidas.", "Convert my shoe size 42 from US to EU sizes for Nike.", "Convert my shoe size 42 from EU to UK sizes for Nike."),
    ("en", "Is the wool coat warmer than the down jacket? Answer in a table.", "In a table: is the wool coat or the down jacket warmer?", "Is the wool coat warmer than the down jacket? Answer in one word.", "Is the wool coat lighter than the down jacket? Answer in a table.", "Is the cashmere scarf warmer than the fleece hat? Answer in a table."),
    ("en", "Has my order of running shoes shipped?", "Have my running shoes been shipped yet?", "Will my order of running shoes ship?", "Have all my orders of running shoes shipped?", "Has my order of running shoes shipped with express delivery?"),
    ("en", "Hem the trousers by 3 centimeters before April 20.", "Shorten the trousers 3 centimeters before April 20.", "Don't hem the trousers by 3 centimeters before April 20.", "Hem the trousers by ٧ centimeters before April 20.", "Hem the trousers by 3 centimeters before April 2."),
    ("en", "Sort the Zara dresses from cheapest to most expensive, prices in euros.", "Show the Zara dresses ordered by price in euros, lowest first.", "Sort the Mango dresses from cheapest to most expensive, prices in euros.", "Sort the Zara dresses from most expensive to cheapest, prices in euros.", "Sort the Zara dresses from cheapest to most expensive, prices in pounds."),
    ("en", "Find a raincoat under 100 dollars and list three options as bullet points.", "As bullet points, list three raincoats that cost less than 100 dollars.", "Find a raincoat under 100 dollars and describe three options in a paragraph.", "Find a raincoat over 100 dollars and list three options as bullet points.", "Find a raincoat under sixty dollars and list five options as bullet points."),
    ("en", "Is the tailor finishing my suit alterations today?", "Will the tailor be done with my suit alterations today?", "Did the tailor finish my suit alterations today?", "Is the tailor finishing all my suit alterations today?", "Is the tailor finishing my suit alterations today before 5 pm?"),
    ("en", "Order 4 white T-shirts in size M for delivery on May 8.", "Get four size M white T-shirts delivered on May 8.", "Don't order 4 white T-shirts in size M for delivery on May 8.", "Order fourteen white T-shirts in size M for delivery on May 8.", "Order 4 white T-shirts in size M for delivery on May 18."),
    # parenting and childcare
    ("en", "Increase Lily's formula by 30 milliliters per feed.", "Give Lily 30 milliliters more formula at each feed.", "Increase Noah's formula by 30 milliliters per feed.", "Decrease Lily's formula by 30 milliliters per feed.", "Increase Lily's formula by 30 grams per feed."),
    ("en", "Do toddlers need more sleep than preschoolers? Answer in one sentence.", "In one sentence: do toddlers need more sleep than preschool children?", "Do toddlers need more sleep than preschoolers? Answer with a table of hours.", "Do toddlers need less sleep than preschoolers? Answer in one sentence.", "Do toddlers need more water than teenagers? Answer in one sentence."),
    ("en", "Is the daycare open during the summer break?", "Does the daycare stay open over the summer break?", "Was the daycare open during the summer break?", "Are all the daycares open during the summer break?", "Is the daycare open during the summer break for children under two?"),
    ("en", "Book a babysitter for 5 hours on Saturday, March 14.", "Get a babysitter for five hours on Saturday, March 14.", "Don't book a babysitter for 5 hours on Saturday, March 14.", "Book a babysitter for 9 hours on Saturday, March 14.", "Book a babysitter for 5 hours on Saturday, March 21."),
    ("en", "Transfer 25 dollars from Emma's allowance account to her savings account.", "Move 25 dollars out of Emma's allowance account into her savings account.", "Transfer 25 dollars from Jack's allowance account to his savings account.", "Transfer 25 dollars from Emma's savings account to her allowance account.", "Transfer 25 euros from Emma's allowance account to her savings account."),
    ("en", "Is oat milk healthier than cow's milk for toddlers? Give a pros and cons table.", "Give a pros and cons table: for toddlers, is oat milk healthier than cow's milk?", "Is oat milk healthier than cow's milk for toddlers? Give a yes or no.", "Is oat milk less healthy than cow's milk for toddlers? Give a pros and cons table.", "Is almond milk healthier than goat's milk for toddlers? Give a pros and cons table."),
    ("en", "Has the school sent the report cards?", "Have the report cards been sent by the school?", "Will the school send the report cards?", "Has each school sent the report cards?", "Has the school sent the report cards by email?"),
    ("en", "Sign Mia up for 10 swimming lessons starting September 3.", "Register Mia for ten swimming lessons from September 3.", "Don't sign Mia up for 10 swimming lessons starting September 3.", "Sign Mia up for 12 swimming lessons starting September 3.", "Sign Mia up for 10 swimming lessons starting September 30."),
    ("en", "Raise the crib mattress by 10 centimeters.", "Move the crib mattress 10 centimeters higher.", "Raise the bassinet mattress by 10 centimeters.", "Lower the crib mattress by 10 centimeters.", "Raise the crib mattress by 10 inches."),
    ("en", "Are girls taller than boys at age 11? Answer with a table of average heights.", "With a table of average heights: at 11, are girls taller than boys?", "Are girls taller than boys at age 11? Answer yes or no.", "Are girls shorter than boys at age 11? Answer with a table of average heights.", "Are girls taller than boys at age 14? Answer with a table of average weights."),
    # errands, German
    ("de", "Ist die Apotheke am Marktplatz heute geöffnet?", "Hat die Apotheke am Marktplatz heute offen?", "War die Apotheke am Marktplatz heute geöffnet?", "Sind alle Apotheken am Marktplatz heute geöffnet?", "Ist die Apotheke am Marktplatz heute nach 20 Uhr geöffnet?"),
    ("de", "Überweise 50 Euro an Jonas am 3. Mai.", "Schick Jonas am 3. Mai 50 Euro.", "Überweise am 3. Mai nicht 50 Euro an Jonas.", "Überweise 80 Euro an Jonas am 3. Mai.", "Überweise 50 Euro an Jonas am 13. Mai."),
    ("de", "Verschiebe den Termin bei Dr. Weber um 30 Minuten nach hinten.", "Leg den Termin bei Dr. Weber 30 Minuten später.", "Verschiebe den Termin bei Dr. Schulz um 30 Minuten nach hinten.", "Verschiebe den Termin bei Dr. Weber um 30 Minuten nach vorne.", "Verschiebe den Termin bei Dr. Weber um 30 Tage nach hinten."),
    ("de", "Ist der ICE nach München schneller als der Flug? Antworte in einem Satz.", "Antworte in einem Satz: Ist man mit dem ICE schneller in München als mit dem Flug?", "Ist der ICE nach München schneller als der Flug? Antworte mit einer Tabelle.", "Ist der ICE nach München billiger als der Flug? Antworte in einem Satz.", "Ist der ICE nach Hamburg schneller als der Bus? Antworte in einem Satz."),
    # errands, Spanish
    ("es", "¿Está abierta la farmacia de la plaza?", "¿La farmacia de la plaza está abierta?", "¿Estaba abierta la farmacia de la plaza?", "¿Están abiertas todas las farmacias de la plaza?", "¿Está abierta la farmacia de la plaza los domingos?"),
    ("es", "Reserva una mesa para 4 personas el 12 de junio.", "Haz una reserva de mesa para cuatro personas el 12 de junio.", "No reserves una mesa para 4 personas el 12 de junio.", "Reserva una mesa para 6 personas el 12 de junio.", "Reserva una mesa para 4 personas el 21 de junio."),
    ("es", "Envía 30 euros de mi cuenta de ahorro a la cuenta de Lucía.", "Transfiere 30 euros desde mi cuenta de ahorro a la cuenta de Lucía.", "Envía 30 euros de mi cuenta de ahorro a la cuenta de Pablo.", "Envía 30 euros de la cuenta de Lucía a mi cuenta de ahorro.", "Envía 30 dólares de mi cuenta de ahorro a la cuenta de Lucía."),
    ("es", "¿Es más barato el tren que el autobús a Valencia? Responde con una tabla.", "Responde con una tabla: ¿cuesta menos ir a Valencia en tren que en autobús?", "¿Es más barato el tren que el autobús a Valencia? Responde con una palabra.", "¿Es más caro el tren que el autobús a Valencia? Responde con una tabla.", "¿Es más barato el avión que el autobús a Sevilla? Responde con una tabla."),
    # errands, Russian
    ("ru", "Аптека на углу сейчас открыта?", "Открыта ли сейчас аптека на углу?", "Аптека на углу была открыта?", "Все аптеки на углу сейчас открыты?", "Аптека на углу сейчас открыта круглосуточно?"),
    ("ru", "Закажи 3 пиццы на 15 апреля.", "Оформи заказ на три пиццы на 15 апреля.", "Не заказывай 3 пиццы на 15 апреля.", "Закажи 5 пицц на 15 апреля.", "Закажи 3 пиццы на 25 апреля."),
    ("ru", "Переведи 2000 рублей с карты Сбербанка на карту Тинькофф.", "Перекинь 2000 рублей с карты Сбербанка на карту Тинькофф.", "Переведи 2000 рублей с карты Сбербанка на карту Альфа-Банка.", "Переведи 2000 рублей с карты Тинькофф на карту Сбербанка.", "Переведи 2000 долларов с карты Сбербанка на карту Тинькофф."),
    ("ru", "Поезд до Казани быстрее самолёта? Ответь одним словом.", "Ответь одним словом: на поезде до Казани быстрее, чем на самолёте?", "Поезд до Казани быстрее самолёта? Ответь подробной таблицей.", "Поезд до Казани дешевле самолёта? Ответь одним словом.", "Автобус до Самары быстрее самолёта? Ответь одним словом."),
    # errands, Chinese
    ("zh", "图书馆现在开门吗?", "图书馆这会儿开着吗?", "图书馆昨天开门了吗?", "所有图书馆现在都开门吗?", "图书馆现在对外来访客开门吗?"),
    ("zh", "帮我订三张五月八日去上海的火车票。", "给我买五月八日去上海的火车票,要三张。", "不要帮我订三张五月八日去上海的火车票。", "帮我订五张五月八日去上海的火车票。", "帮我订三张五月十八日去上海的火车票。"),
    ("zh", "把两百元从我的支付宝转到微信。", "从我的支付宝转两百元到微信。", "把两百元从我的支付宝转到银行卡。", "把两百元从我的微信转到支付宝。", "把两百美元从我的支付宝转到微信。"),
    ("zh", "高铁比飞机便宜吗?用一句话回答。", "用一句话回答:坐高铁是不是比坐飞机便宜?", "高铁比飞机便宜吗?用表格回答。", "高铁比飞机贵吗?用一句话回答。", "大巴比高铁便宜吗?用一句话回答。"),
    # errands, Japanese
    ("ja", "駅前のカフェは今混んでいますか?", "駅前のカフェは今、人が多いですか?", "駅前のカフェは混んでいましたか?", "駅前のカフェは全部今混んでいますか?", "駅前のカフェは今、二階も混んでいますか?"),
    ("ja", "6月5日に会議室を3時間予約してください。", "会議室を6月5日に3時間おさえてください。", "6月5日に会議室を3時間予約しないでください。", "6月5日に会議室を５時間予約してください。", "6月15日に会議室を3時間予約してください。"),
    ("ja", "私の口座から田中さんに1万円を送金してください。", "田中さんに私の口座から1万円を振り込んでください。", "私の口座から佐藤さんに1万円を送金してください。", "田中さんの口座から私に1万円を送金してください。", "私の口座から田中さんに1万ドルを送金してください。"),
    ("ja", "新幹線は飛行機より速いですか?一言で答えてください。", "一言で答えてください:新幹線は飛行機より速く着きますか?", "新幹線は飛行機より速いですか?表で答えてください。", "新幹線は飛行機より安いですか?一言で答えてください。", "バスは飛行機より安いですか?一言で答えてください。"),
]  # fmt: skip


def build(
    items: list[tuple[str, str, str, str, str, str]],
    domains: tuple[str, ...],
    other_domain: str,
    prefix: str,
) -> list[dict[str, object]]:
    """Four pairs per item: its paraphrase, then its three variants' kinds from :data:`CYCLE`.

    English items take their domain by tens; the others are ``other_domain``. Set #4's
    generator builds its pairs with this too.
    """
    assert len(items) == 100, len(items)
    out: list[dict[str, object]] = []
    for i, (lang, a, para, *variants) in enumerate(items):
        domain = domains[i // 10] if lang == "en" else other_domain
        base = {"lang": lang, "domain": domain}
        out.append({"id": f"{prefix}{i}-reuse", "label": "reuse", "kind": "paraphrase", **base,
                    "a": request(a), "b": request(para)})  # fmt: skip
        for j, variant in enumerate(variants):
            kind = CYCLE[(3 * i + j) % 12]
            out.append({"id": f"{prefix}{i}-{kind}", "label": "distinct", "kind": kind, **base,
                        "a": request(a), "b": request(variant)})  # fmt: skip
    return out


def pairs() -> list[dict[str, object]]:
    """The 400 pairs, in a fixed order."""
    return build(ITEMS, DOMAINS, "errands", "t")


def main() -> None:
    write(pairs(), OUT)


if __name__ == "__main__":
    main()
