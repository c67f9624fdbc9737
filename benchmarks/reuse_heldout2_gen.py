# ruff: noqa: E501, RUF001  (one hand-written item a line, in five scripts: the data reads best as typed)
"""Build ``benchmarks/reuse_heldout2.jsonl``: the second held-out set of reuse by meaning.

The method is written in ``benchmarks/RESULTS.md`` ("held-out set #2", fixed before any
result): 100 hand-written base requests, 80 in English in 8 domains neither the
calibration set nor held-out set #1 covers, 20 in Italian, Portuguese, Japanese and
Arabic; each gives one should-reuse pair (a hand-written paraphrase) and three
must-not pairs (one element changed, or two for "two_edits"; the kinds taken from a
fixed cycle). Same record format as set #1. Run ``python -m benchmarks.reuse_heldout2_gen``.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.reuse_heldout_gen import request, write

OUT = Path(__file__).with_name("reuse_heldout2.jsonl")
# Item i's three must-not variants are of kinds CYCLE[(3i + j) % 10], j = 0, 1, 2.
CYCLE = (
    "unit", "constraint", "tense", "quantifier", "negation",
    "number", "entity", "date", "direction", "two_edits",
)  # fmt: skip
DOMAINS = (
    "gardening", "pets", "car_care", "music", "photography", "astronomy", "insurance", "events",
)  # fmt: skip

# (language, request, paraphrase, variant 1, variant 2, variant 3), ten a domain.
ITEMS: list[tuple[str, str, str, str, str, str]] = [
    # gardening
    ("en", "How much water does a lemon tree need per week in liters?", "In liters, how much water should a lemon tree get each week?", "How much water does a lemon tree need per week in gallons?", "How much water does a lemon tree need per week in liters during a heatwave?", "How much water did the lemon tree need per week in liters?"),
    ("en", "List 5 perennials that need full sun.", "Name five perennial plants that require full sunlight.", "List all perennials that need full sun.", "List 5 perennials that do not need full sun.", "List 8 perennials that need full sun."),
    ("en", "Remind me to bring the geraniums indoors on October 10.", "Set a reminder on October 10 to bring the geraniums inside.", "Remind me to bring the begonias indoors on October 10.", "Remind me to bring the geraniums indoors on November 10.", "Remind me to take the geraniums outdoors on October 10."),
    ("en", "How tall does a sunflower grow in meters?", "In meters, what height can a sunflower reach?", "How wide does a dahlia grow in meters?", "How tall does a sunflower grow in feet?", "How tall does a sunflower grow in meters in a pot?"),
    ("en", "Have the seedlings in the greenhouse been watered?", "Did someone water the greenhouse seedlings?", "Will the seedlings in the greenhouse be watered?", "Have all the seedlings in the greenhouse been watered?", "Which seedlings in the greenhouse have not been watered?"),
    ("en", "Order 3 bags of potting soil from GreenThumb for Friday.", "Place an order with GreenThumb for three bags of potting soil, delivered Friday.", "Order 7 bags of potting soil from GreenThumb for Friday.", "Order 3 bags of potting soil from Hornbach for Friday.", "Order 3 bags of potting soil from GreenThumb for Monday."),
    ("en", "Raise the greenhouse temperature by 2 degrees Celsius.", "Increase the temperature in the greenhouse by two degrees Celsius.", "Lower the greenhouse temperature by 2 degrees Celsius.", "Raise the shed temperature by 4 degrees Celsius.", "Raise the greenhouse temperature by 2 degrees Fahrenheit."),
    ("en", "Is the rose bush on the fence infested with aphids?", "Does the rose bush along the fence have aphids?", "Is the rose bush on the fence infested with aphids on the undersides of its leaves?", "Was the rose bush on the fence infested with aphids?", "Are all the rose bushes on the fence infested with aphids?"),
    ("en", "Plant 12 lavender plants along the path.", "Put twelve lavender plants in along the path.", "Don't plant 12 lavender plants along the path.", "Plant ２０ lavender plants along the path.", "Plant 12 rosemary plants along the path."),
    ("en", "Can I plant the beans outside after May 15?", "Is it OK to plant beans outdoors once May 15 has passed?", "Can I plant the beans outside after April 15?", "Can I plant the beans outside before May 15?", "Can I plant the peas inside after May 15?"),
    # pets
    ("en", "How much should my cat weigh in kilograms?", "What is a healthy weight for my cat, in kilograms?", "How much should my cat weigh in pounds?", "How much should my cat weigh in kilograms after she is spayed?", "How much did my cat weigh in kilograms?"),
    ("en", "Book a grooming appointment for 2 of my dogs.", "Schedule grooming for two of my dogs.", "Book a grooming appointment for all of my dogs.", "Don't book a grooming appointment for 2 of my dogs.", "Book a grooming appointment for three of my dogs."),
    ("en", "Remind me to take Biscuit to the vet on June 3.", "Set a reminder for June 3: Biscuit's vet visit.", "Remind me to take Pepper to the vet on June 3.", "Remind me to take Biscuit to the vet on June 13.", "Remind me to pick Biscuit up from the vet on June 3."),
    ("en", "How long should I walk a beagle each day in minutes?", "In minutes, how much daily walking does a beagle need?", "How long should I walk a husky each week in minutes?", "How long should I walk a beagle each day in kilometers?", "How long should I walk a beagle each day in minutes when it is over ten years old?"),
    ("en", "Is the parrot allowed to eat avocado?", "Can my parrot safely eat avocado?", "Was the parrot allowed to eat avocado?", "Are all parrots allowed to eat avocado?", "Why is the parrot not allowed to eat avocado?"),
    ("en", "Order 4 bags of dry food from Zooplus for Thursday.", "Have four bags of dry food from Zooplus delivered on Thursday.", "Order 14 bags of dry food from Zooplus for Thursday.", "Order 4 bags of dry food from Fressnapf for Thursday.", "Order 4 bags of dry food from Zooplus for Saturday."),
    ("en", "Increase the fish tank temperature to 26 degrees Celsius.", "Turn the fish tank heater up to 26 degrees Celsius.", "Decrease the fish tank temperature to 26 degrees Celsius.", "Increase the turtle tank temperature to 28 degrees Celsius.", "Increase the fish tank temperature to 26 degrees Fahrenheit."),
    ("en", "Recommend a harness for my dachshund.", "Which harness would you suggest for my dachshund?", "Recommend a harness for my dachshund that is reflective.", "Which harness did you recommend for my dachshund?", "Recommend a harness for each of my dachshunds."),
    ("en", "Schedule the cat's vaccination for 10 am.", "Book the cat's vaccination appointment at 10 in the morning.", "Don't schedule the cat's vaccination for 10 am.", "Schedule the cat's vaccination for eleven am.", "Schedule the dog's vaccination for 10 am."),
    ("en", "Is the pet hotel open for check-in on December 22?", "Can we check our pet into the pet hotel on December 22?", "Is the pet hotel open for check-in on December 27?", "Is the pet hotel open for check-out on December 22?", "Is the pet hotel open for check-out on January 2?"),
    # car care
    ("en", "What tire pressure should my Golf have in bar?", "In bar, what's the right tire pressure for my Golf?", "What tire pressure should my Golf have in psi?", "What tire pressure should my Golf have in bar with a full load?", "What tire pressure did my Golf have in bar?"),
    ("en", "Replace 2 of the tires on my car.", "Change two of my car's tires.", "Replace all of the tires on my car.", "Don't replace 2 of the tires on my car.", "Replace ٣ of the tires on my car."),
    ("en", "Book an oil change at the Shell garage for March 8.", "Schedule my oil change at the Shell garage on March 8.", "Book an oil change at the Esso garage for March 8.", "Book an oil change at the Shell garage for March 18.", "Cancel an oil change at the Shell garage for March 8."),
    ("en", "What is the fuel consumption of a Toyota Corolla in liters per 100 km?", "How many liters per 100 km does a Toyota Corolla use?", "What is the fuel consumption of a Honda Civic in liters per 100 km on the highway?", "What is the fuel consumption of a Toyota Corolla in miles per gallon?", "What is the fuel consumption of a Toyota Corolla in liters per 100 km when towing a trailer?"),
    ("en", "Is the car battery charging?", "Is the battery of the car being charged?", "Was the car battery charging?", "Are both car batteries charging?", "Why is the car battery not charging?"),
    ("en", "What maintenance is due on my Mazda at 60,000 km in September?", "In September, at 60,000 kilometers, what service does my Mazda need?", "What maintenance is due on my Mazda at ninety thousand km in September?", "What maintenance is due on my Hyundai at 60,000 km in September?", "What maintenance is due on my Mazda at 60,000 km in March?"),
    ("en", "Raise the car's suspension by 2 centimeters.", "Lift the car's suspension 2 centimeters higher.", "Lower the car's suspension by 2 centimeters.", "Lower the car's suspension by 4 centimeters.", "Raise the car's suspension by 2 inches."),
    ("en", "Are the brake pads worn out?", "Have the brake pads worn down too far?", "Are the brake pads worn out on the front axle?", "Were the brake pads worn out?", "Are any of the brake pads worn out?"),
    ("en", "Add 5 liters of coolant to the Volvo.", "Top up the Volvo with five liters of coolant.", "Don't add 5 liters of coolant to the Volvo.", "Add fifteen liters of coolant to the Volvo.", "Add 5 liters of coolant to the Peugeot."),
    ("en", "Is my car inspection due before August 31?", "Do I have to get my car inspected before August 31?", "Is my car inspection due before July 31?", "Is my car inspection due after August 31?", "Is my motorbike inspection due after August 31?"),
    # music
    ("en", "How long is Beethoven's Fifth Symphony in minutes?", "In minutes, what's the running time of Beethoven's Fifth Symphony?", "How long is Beethoven's Fifth Symphony in seconds?", "How long is Beethoven's Fifth Symphony in minutes without repeats?", "How long was Beethoven's Fifth Symphony in minutes?"),
    ("en", "Add 3 jazz albums to my playlist.", "Put three jazz albums on my playlist.", "Add all jazz albums to my playlist.", "Don't add 3 jazz albums to my playlist.", "Add ７ jazz albums to my playlist."),
    ("en", "Buy tickets for the Coldplay concert on July 12.", "Get me tickets to Coldplay's concert on July 12.", "Buy tickets for the Adele concert on July 12.", "Buy tickets for the Coldplay concert on July 21.", "Sell tickets for the Coldplay concert on July 12."),
    ("en", "How heavy is a grand piano in kilograms?", "In kilograms, what does a grand piano weigh?", "How heavy is an upright piano in pounds?", "How heavy is a grand piano in pounds?", "How heavy is a grand piano in kilograms without its legs?"),
    ("en", "Is the choir rehearsing tonight?", "Does the choir have a rehearsal tonight?", "Did the choir rehearse tonight?", "Are all the choirs rehearsing tonight?", "Why is the choir not rehearsing tonight?"),
    ("en", "Book the rehearsal room for 4 hours on Saturday.", "Reserve the rehearsal room on Saturday for four hours.", "Book the rehearsal room for 8 hours on Saturday.", "Book the recording studio for 4 hours on Saturday.", "Book the rehearsal room for 4 hours on Sunday."),
    ("en", "Speed up the metronome by 10 beats per minute.", "Make the metronome faster by 10 beats per minute.", "Slow down the metronome by 10 beats per minute.", "Slow down the metronome by 20 beats per minute.", "Speed up the metronome by 10 percent."),
    ("en", "Recommend a piano piece for a beginner.", "Which piano piece would you suggest for someone just starting out?", "Recommend a piano piece for a beginner that uses only the left hand.", "Which piano piece did you recommend for a beginner?", "Recommend several piano pieces for a beginner."),
    ("en", "Play the Miles Davis playlist at volume 6.", "Put on the Miles Davis playlist with the volume at 6.", "Don't play the Miles Davis playlist at volume 6.", "Play the Miles Davis playlist at volume nine.", "Play the John Coltrane playlist at volume 6."),
    ("en", "Is the music school closed from December 20?", "Does the music school close starting December 20?", "Is the music school closed from December 23?", "Is the music school closed until December 20?", "Is the dance school open from December 20?"),
    # photography
    ("en", "What is the file size of a RAW photo from my camera in megabytes?", "In megabytes, how big is one RAW photo from my camera?", "What is the file size of a RAW photo from my camera in gigabytes?", "What is the file size of a RAW photo from my camera in megabytes at the highest resolution?", "What was the file size of a RAW photo from my camera in megabytes?"),
    ("en", "Export 20 photos from the wedding album.", "Export twenty of the photos in the wedding album.", "Export all photos from the wedding album.", "Don't export 20 photos from the wedding album.", "Export sixty photos from the wedding album."),
    ("en", "Upload the photos from Lisbon taken on May 2.", "Put the Lisbon photos from May 2 online.", "Upload the photos from Porto taken on May 2.", "Upload the photos from Lisbon taken on May 12.", "Download the photos from Lisbon taken on May 2."),
    ("en", "What focal length in millimeters is best for portraits?", "For portraits, which focal length in millimeters works best?", "What focal length in millimeters is worst for landscapes?", "What focal length in inches is best for portraits?", "What focal length in millimeters is best for portraits on a crop sensor?"),
    ("en", "Is the camera backing up photos to the cloud?", "Are the camera's photos being backed up to the cloud?", "Was the camera backing up photos to the cloud?", "Is every camera backing up photos to the cloud?", "Why is the camera not backing up photos to the cloud?"),
    ("en", "Print 10 copies of the family portrait by Friday.", "Get ten prints of the family portrait done by Friday.", "Print 12 copies of the family portrait by Friday.", "Print 10 copies of the graduation portrait by Friday.", "Print 10 copies of the family portrait by Tuesday."),
    ("en", "Increase the exposure by 1 stop.", "Brighten the exposure by one stop.", "Decrease the exposure by 1 stop.", "Decrease the exposure by 3 stops.", "Increase the exposure by 1 second."),
    ("en", "Suggest a camera bag for hiking.", "What camera bag would you recommend for hikes?", "Suggest a camera bag for hiking that is waterproof.", "Which camera bag did you suggest for hiking?", "Suggest several camera bags for hiking."),
    ("en", "Set the ISO to 400 on the Nikon.", "Change the Nikon's ISO setting to 400.", "Don't set the ISO to 400 on the Nikon.", "Set the ISO to ８００ on the Nikon.", "Set the ISO to 400 on the Canon."),
    ("en", "Show me photos taken before April 1.", "Display the photos from before April 1.", "Show me photos taken before April 11.", "Show me photos taken after April 1.", "Show me videos taken after April 1."),
    # astronomy
    ("en", "How far is Mars from Earth in kilometers?", "What's the distance from Earth to Mars in kilometers?", "How far is Mars from Earth in light-minutes?", "How far is Mars from Earth in kilometers at its closest approach?", "How far was Mars from Earth in kilometers?"),
    ("en", "Name 3 moons of Jupiter.", "List three of Jupiter's moons.", "Name all moons of Jupiter.", "Name 3 objects that are not moons of Jupiter.", "Name ٤ moons of Jupiter."),
    ("en", "When does the ISS rise over Vienna on September 5?", "At what time does the ISS come up over Vienna on September 5?", "When does the ISS rise over Prague on September 5?", "When does the ISS rise over Vienna on September 15?", "When does the ISS set over Vienna on September 5?"),
    ("en", "What is the surface temperature of Venus in Celsius?", "In Celsius, how hot is the surface of Venus?", "What is the surface temperature of Mercury in Kelvin?", "What is the surface temperature of Venus in Fahrenheit?", "What is the surface temperature of Venus in Celsius at the poles?"),
    ("en", "Is the telescope tracking Saturn?", "Is Saturn being tracked by the telescope?", "Was the telescope tracking Saturn?", "Is every telescope tracking Saturn?", "Why is the telescope not tracking Saturn?"),
    ("en", "Point the telescope at Messier 31 on Friday night.", "Aim the telescope at Messier 31 on Friday night.", "Point the telescope at Messier 42 on Friday night.", "Point the telescope at Jupiter on Friday night.", "Point the telescope at Messier 31 on Saturday night."),
    ("en", "Rotate the dome 30 degrees east.", "Turn the dome thirty degrees to the east.", "Rotate the dome 30 degrees west.", "Rotate the dome 45 degrees west.", "Rotate the dome 30 arcminutes east."),
    ("en", "Recommend a telescope for viewing planets.", "Which telescope should I get to observe the planets?", "Recommend a telescope for viewing planets that costs under 300 euros.", "Which telescope did you recommend for viewing planets?", "Recommend several telescopes for viewing planets."),
    ("en", "Take 30 exposures of the Orion Nebula.", "Capture thirty exposures of the Orion Nebula.", "Don't take 30 exposures of the Orion Nebula.", "Take forty exposures of the Orion Nebula.", "Take 30 exposures of the Andromeda Galaxy."),
    ("en", "Is the lunar eclipse visible in Europe on March 14?", "Can people in Europe see the lunar eclipse on March 14?", "Is the lunar eclipse visible in Europe on March 3?", "Is the lunar eclipse invisible in Europe on March 14?", "Is the solar eclipse visible in Asia on March 14?"),
    # insurance
    ("en", "How much is my home insurance premium in euros per month?", "What's my monthly home insurance premium in euros?", "How much is my home insurance premium in dollars per month?", "How much is my home insurance premium in euros per month with flood cover?", "How much was my home insurance premium in euros per month?"),
    ("en", "Add 2 drivers to my car insurance policy.", "Put two additional drivers on my car insurance policy.", "Add all drivers to my car insurance policy.", "Don't add 2 drivers to my car insurance policy.", "Add 5 drivers to my car insurance policy."),
    ("en", "File a claim with Allianz for the storm damage on January 9.", "Submit a claim to Allianz for the January 9 storm damage.", "File a claim with AXA for the storm damage on January 9.", "File a claim with Allianz for the storm damage on January 19.", "Withdraw a claim with Allianz for the storm damage on January 9."),
    ("en", "What is the deductible on my health plan in dollars?", "How many dollars is my health plan's deductible?", "What is the copay on my dental plan in dollars?", "What is the deductible on my health plan in euros?", "What is the deductible on my health plan in dollars for out-of-network care?"),
    ("en", "Is my travel insurance valid?", "Is my travel insurance still in force?", "Was my travel insurance valid?", "Are both of my travel insurance policies valid?", "Why is my travel insurance not valid?"),
    ("en", "Quote life insurance for 20 years starting in May.", "Give me a quote for a 20-year life insurance policy beginning in May.", "Quote life insurance for thirty years starting in May.", "Quote disability insurance for 20 years starting in May.", "Quote life insurance for 20 years starting in June."),
    ("en", "Raise my liability coverage to 5 million euros.", "Increase my liability coverage to five million euros.", "Lower my liability coverage to 5 million euros.", "Lower my liability coverage to 2 million euros.", "Raise my liability coverage to 5 million dollars."),
    ("en", "Does my policy cover water damage?", "Is water damage covered under my policy?", "Does my policy cover water damage from a burst pipe in the garage?", "Did my policy cover water damage?", "Do all my policies cover water damage?"),
    ("en", "Renew the policy for the 2 cars.", "Renew the insurance policy for the two cars.", "Don't renew the policy for the 2 cars.", "Renew the policy for the ３ cars.", "Renew the policy for the 2 motorcycles."),
    ("en", "Does my coverage start before October 1?", "Will my coverage begin before October 1?", "Does my coverage start before November 1?", "Does my coverage end before October 1?", "Does my coverage end after October 1?"),
    # event planning
    ("en", "How much space do we need for 80 guests in square meters?", "In square meters, how big a room do 80 guests need?", "How much space do we need for 80 guests in square feet?", "How much space do we need for 80 guests in square meters with a dance floor?", "How much space did we need for 80 guests in square meters?"),
    ("en", "Invite 15 colleagues to the retirement party.", "Send retirement party invitations to fifteen colleagues.", "Invite all colleagues to the retirement party.", "Don't invite 15 colleagues to the retirement party.", "Invite ５０ colleagues to the retirement party."),
    ("en", "Book the Grand Hall for the gala on November 21.", "Reserve the Grand Hall for the gala on November 21.", "Book the Rose Garden for the gala on November 21.", "Book the Grand Hall for the gala on November 12.", "Release the Grand Hall for the gala on November 21."),
    ("en", "How much wine should I buy for 50 guests in bottles?", "For fifty guests, how many bottles of wine should I buy?", "How much beer should I buy for 50 guests in liters?", "How much wine should I buy for 50 guests in liters?", "How much wine should I buy for 50 guests in bottles for a five-hour reception?"),
    ("en", "Is the caterer confirmed for the party?", "Has the caterer for the party been confirmed?", "Was the caterer confirmed for the party?", "Are all the caterers confirmed for the party?", "Why is the caterer not confirmed for the party?"),
    ("en", "Order a cake for 30 people from Sacher for Saturday.", "Get a Sacher cake that serves 30 people, for Saturday.", "Order a cake for seventy people from Sacher for Saturday.", "Order a cake for 30 people from Demel for Saturday.", "Order a cake for 30 people from Sacher for Sunday."),
    ("en", "Move the ceremony 2 hours earlier.", "Shift the ceremony to start two hours earlier.", "Move the ceremony 2 hours later.", "Move the dinner 3 hours later.", "Move the ceremony 2 days earlier."),
    ("en", "Find a photographer for the wedding.", "Look for a wedding photographer.", "Find a photographer for the wedding who also shoots video.", "Did you find a photographer for the wedding?", "Find several photographers for the wedding."),
    ("en", "Send the menu to 4 vendors.", "Share the menu with four vendors.", "Don't send the menu to 4 vendors.", "Send the menu to 14 vendors.", "Send the menu to 4 guests."),
    ("en", "Can the florist deliver before June 6?", "Is the florist able to deliver ahead of June 6?", "Can the florist deliver before June 16?", "Can the florist deliver after June 6?", "Can the baker deliver after June 6?"),
    # Italian
    ("it", "Quanto costa la bolletta della luce in euro al mese?", "Quanti euro al mese costa la bolletta della luce?", "Quanto costa la bolletta della luce in dollari al mese?", "Quanto costa la bolletta della luce in euro al mese con il riscaldamento elettrico?", "Quanto costava la bolletta della luce in euro al mese?"),
    ("it", "Prenota 2 posti per lo spettacolo di stasera.", "Riserva due posti per lo spettacolo di questa sera.", "Prenota tutti i posti per lo spettacolo di stasera.", "Non prenotare 2 posti per lo spettacolo di stasera.", "Prenota cinque posti per lo spettacolo di stasera."),
    ("it", "Spedisci il pacco a Milano il 3 maggio.", "Manda il pacco a Milano il 3 maggio.", "Spedisci il pacco a Torino il 3 maggio.", "Spedisci il pacco a Milano il 13 maggio.", "Ritira il pacco a Milano il 3 maggio."),
    ("it", "Quanto pesa la valigia in chili?", "Quanti chili pesa la valigia?", "Quanto pesa lo zaino in libbre?", "Quanto pesa la valigia in libbre?", "Quanto pesa la valigia in chili senza le ruote?"),
    ("it", "Il medico riceve oggi pomeriggio?", "Il dottore fa visite oggi pomeriggio?", "Il medico ha ricevuto oggi pomeriggio?", "Tutti i medici ricevono oggi pomeriggio?", "Perché il medico non riceve oggi pomeriggio?"),
    # Portuguese
    ("pt", "Compre 3 passagens de ônibus para Curitiba na sexta.", "Quero comprar três passagens de ônibus para Curitiba na sexta.", "Compre 4 passagens de ônibus para Curitiba na sexta.", "Compre 3 passagens de ônibus para Santos na sexta.", "Compre 3 passagens de ônibus para Curitiba no sábado."),
    ("pt", "Aumente a temperatura do ar-condicionado em 2 graus.", "Suba a temperatura do ar-condicionado em dois graus.", "Diminua a temperatura do ar-condicionado em 2 graus.", "Diminua a temperatura do ar-condicionado em 4 graus.", "Aumente a temperatura do ar-condicionado em 2 por cento."),
    ("pt", "A farmácia entrega remédios em casa?", "A farmácia faz entrega de remédios em domicílio?", "A farmácia entrega remédios em casa aos domingos?", "A farmácia entregava remédios em casa?", "Todas as farmácias entregam remédios em casa?"),
    ("pt", "Pague a conta de internet de 150 reais.", "Faça o pagamento da conta de internet de 150 reais.", "Não pague a conta de internet de 150 reais.", "Pague a conta de internet de 180 reais.", "Pague a conta de telefone de 150 reais."),
    ("pt", "Posso renovar o passaporte antes de 10 de julho?", "É possível renovar o passaporte antes do dia 10 de julho?", "Posso renovar o passaporte antes de 20 de julho?", "Posso renovar o passaporte depois de 10 de julho?", "Posso renovar a carteira de motorista depois de 10 de julho?"),
    # Japanese
    ("ja", "東京から大阪まで何キロですか?", "東京と大阪の距離は何キロメートルですか?", "東京から大阪まで何マイルですか?", "東京から大阪まで高速道路で何キロですか?", "東京から大阪まで何キロでしたか?"),
    ("ja", "会議室を三つ予約してください。", "会議室を3部屋押さえてください。", "会議室を全部予約してください。", "会議室を三つ予約しないでください。", "会議室を五つ予約してください。"),
    ("ja", "5月10日に京都へ荷物を送ってください。", "荷物を5月10日に京都へ発送してください。", "5月10日に神戸へ荷物を送ってください。", "5月20日に京都へ荷物を送ってください。", "5月10日に京都から荷物を送ってください。"),
    ("ja", "この荷物は何キロありますか?", "この荷物の重さは何キログラムですか?", "あの箱は何ポンドありますか?", "この荷物は何ポンドありますか?", "この荷物は箱なしで何キロありますか?"),
    ("ja", "郵便局は今開いていますか?", "今、郵便局は営業していますか?", "郵便局は開いていましたか?", "郵便局はすべて今開いていますか?", "郵便局はなぜ今開いていないのですか?"),
    # Arabic
    ("ar", "احجز غرفة لثلاثة أشخاص في فندق هيلتون يوم الجمعة.", "أريد حجز غرفة لثلاثة أشخاص في فندق هيلتون يوم الجمعة.", "احجز غرفة لخمسة أشخاص في فندق هيلتون يوم الجمعة.", "احجز غرفة لثلاثة أشخاص في فندق ماريوت يوم الجمعة.", "احجز غرفة لثلاثة أشخاص في فندق هيلتون يوم السبت."),
    ("ar", "ارفع درجة حرارة المكيف ٢ درجة مئوية.", "زد حرارة المكيف بمقدار ٢ درجة مئوية.", "اخفض درجة حرارة المكيف ٢ درجة مئوية.", "اخفض درجة حرارة المكيف ٤ درجة مئوية.", "ارفع درجة حرارة المكيف ٢ درجة فهرنهايت."),
    ("ar", "هل المخبز مفتوح الآن؟", "هل المخبز يعمل في هذا الوقت؟", "هل المخبز مفتوح الآن قرب المستشفى؟", "هل كان المخبز مفتوحا؟", "هل كل المخابز مفتوحة الآن؟"),
    ("ar", "ادفع فاتورة الكهرباء بمبلغ ٢٠٠ ريال.", "سدد فاتورة الكهرباء البالغة ٢٠٠ ريال.", "لا تدفع فاتورة الكهرباء بمبلغ ٢٠٠ ريال.", "ادفع فاتورة الكهرباء بمبلغ ٣٠٠ ريال.", "ادفع فاتورة الماء بمبلغ ٢٠٠ ريال."),
    ("ar", "متى يصل القطار إلى الرياض يوم ٥ مايو؟", "في أي وقت يصل القطار إلى الرياض في ٥ مايو؟", "متى يصل القطار إلى الرياض يوم ٢٥ مايو؟", "متى يغادر القطار الرياض يوم ٥ مايو؟", "متى يغادر القطار جدة يوم ٥ مايو؟"),
]  # fmt: skip


def pairs() -> list[dict[str, object]]:
    """The 400 pairs, in a fixed order."""
    assert len(ITEMS) == 100, len(ITEMS)
    out: list[dict[str, object]] = []
    for i, (lang, a, para, *variants) in enumerate(ITEMS):
        domain = DOMAINS[i // 10] if lang == "en" else "errands_and_services"
        base = {"lang": lang, "domain": domain}
        out.append({"id": f"s{i}-reuse", "label": "reuse", "kind": "paraphrase", **base,
                    "a": request(a), "b": request(para)})  # fmt: skip
        for j, variant in enumerate(variants):
            kind = CYCLE[(3 * i + j) % 10]
            out.append({"id": f"s{i}-{kind}", "label": "distinct", "kind": kind, **base,
                        "a": request(a), "b": request(variant)})  # fmt: skip
    return out


def main() -> None:
    write(pairs(), OUT)


if __name__ == "__main__":
    main()
