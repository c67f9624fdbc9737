# ruff: noqa: E501, RUF001  (one hand-written pair a line, in five scripts: the data reads best as typed)
"""Build ``benchmarks/reuse_heldout.jsonl``: the held-out pairs of reuse by meaning.

The method is written in ``benchmarks/RESULTS.md`` (fixed before any result): 100
hand-written base requests in 10 domains the calibration set does not cover, 20 of
them in German, French, Spanish, Russian and Chinese; each gives one should-reuse
pair (a hand-written paraphrase) and two must-not pairs (one element changed, the
kind taken from a fixed cycle). Run ``python -m benchmarks.reuse_heldout_gen``.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).with_name("reuse_heldout.jsonl")
SYSTEM = "You are a helpful assistant. Answer briefly."
# Item i's two must-not variants are of kinds CYCLE[2i % 10] and CYCLE[(2i + 1) % 10].
CYCLE = (
    "tense", "quantifier", "constraint", "negation", "number",
    "entity", "date", "direction", "unit", "two_edits",
)  # fmt: skip
DOMAINS = (
    "education", "real_estate", "legal", "cooking", "sports", "hr", "retail", "smart_home",
)  # fmt: skip

# (language, request, paraphrase, variant 1, variant 2), five a group, two groups a domain.
ITEMS: list[tuple[str, str, str, str, str]] = [
    # education
    ("en", "Is the campus library open on public holidays?", "Does the campus library open its doors on public holidays?", "Was the campus library open on public holidays?", "Is every campus library open on public holidays?"),
    ("en", "Suggest a study plan for the calculus final.", "Could you propose a revision schedule for my calculus final exam?", "Suggest a study plan for the calculus final that fits in one weekend.", "Don't suggest a study plan for the calculus final."),
    ("en", "Explain the 3 main causes of the French Revolution.", "What were the three principal causes of the French Revolution?", "Explain the 5 main causes of the French Revolution.", "Explain the 3 main causes of the American Revolution."),
    ("en", "When does registration for the spring semester open?", "On what date can students start registering for the spring semester?", "When does registration for the fall semester open?", "When does registration for the spring semester close?"),
    ("en", "How many credits do I need to graduate with a bachelor's degree?", "What number of credits is required to earn a bachelor's degree?", "How many credits do I need to graduate with a bachelor's degree in hours?", "How many credits did I need to graduate with a master's degree?"),
    ("en", "Is the chemistry lab booked this afternoon?", "Has somebody reserved the chemistry lab for this afternoon?", "Was the chemistry lab booked this afternoon?", "Is the chemistry lab booked every afternoon?"),
    ("en", "List scholarships for engineering students.", "Which scholarships are available to engineering students?", "List scholarships for engineering students from rural areas.", "List scholarships not meant for engineering students."),
    ("en", "Grade this essay on a scale of 1 to 10.", "Give this essay a score between 1 and 10.", "Grade this essay on a scale of 1 to 100.", "Grade this essay the way Professor Ruiz would, on a scale of 1 to 10."),
    ("en", "Summarize the lecture notes from Monday.", "Give me a summary of Monday's lecture notes.", "Summarize the lecture notes from Thursday.", "Expand the lecture notes from Monday."),
    ("en", "Convert my GPA of 3.6 to the German grading scale.", "What is a 3.6 GPA on the German grading scale?", "Convert my GPA of 3.6 to the German grading scale in percent.", "Convert my GPA of 3.2 to the French grading scale."),
    # real estate
    ("en", "Is the apartment on Elm Street still available?", "Can I still rent the Elm Street apartment?", "Was the apartment on Elm Street still available?", "Are all the apartments on Elm Street still available?"),
    ("en", "Find two-bedroom flats near the central station.", "Show me 2-bedroom apartments close to the central station.", "Find two-bedroom flats near the central station that allow pets.", "Find two-bedroom flats not near the central station."),
    ("en", "What is the monthly mortgage payment on a 300,000 dollar loan at 5 percent?", "How much would I pay each month for a $300,000 mortgage at 5%?", "What is the monthly mortgage payment on a 400,000 dollar loan at 5 percent?", "What is the monthly mortgage payment on a 300,000 dollar loan at 5 percent from Chase?"),
    ("en", "Schedule a viewing of the house for next Tuesday.", "Book a house viewing for next Tuesday.", "Schedule a viewing of the house for next Friday.", "Cancel a viewing of the house for next Tuesday."),
    ("en", "How big is the garden in square meters?", "What is the size of the garden in square meters?", "How big is the garden in square feet?", "How big was the garage in square meters?"),
    ("en", "Will the landlord renew the lease?", "Is the landlord going to renew the lease?", "Did the landlord renew the lease?", "Will the landlord renew every lease?"),
    ("en", "Estimate the value of my condo.", "What is my condo worth, roughly?", "Estimate the value of my condo after the renovation.", "Estimate the value of a condo I don't own yet."),
    ("en", "Compare property taxes in 2 neighboring counties.", "How do property taxes differ between two neighboring counties?", "Compare property taxes in 3 neighboring counties.", "Compare property taxes in 2 neighboring counties of Texas."),
    ("en", "What time does the open house start on Saturday?", "When does Saturday's open house begin?", "What time does the open house start on Sunday?", "What time does the open house end on Saturday?"),
    ("en", "How much is the deposit in euros?", "What's the deposit amount in euros?", "How much is the deposit in dollars?", "How much was the rent in euros?"),
    # legal
    ("en", "Is this contract clause enforceable?", "Can this clause of the contract be enforced?", "Was this contract clause enforceable?", "Is any contract clause enforceable?"),
    ("en", "Draft a non-disclosure agreement for a freelancer.", "Write an NDA for a freelance contractor.", "Draft a non-disclosure agreement for a freelancer that lasts five years.", "Draft an agreement for a freelancer without a non-disclosure clause."),
    ("en", "What is the fine for a first speeding offense over 20 km/h?", "How much is the penalty for a first speeding violation above 20 km/h?", "What is the fine for a first speeding offense over 40 km/h?", "What is the fine for a first speeding offense over 20 km/h in Austria?"),
    ("en", "Can I file the appeal before the deadline in March?", "Is it possible to lodge the appeal ahead of the March deadline?", "Can I file the appeal before the deadline in June?", "Can I file the appeal after the deadline in March?"),
    ("en", "How long is the notice period in weeks?", "What is the length of the notice period, in weeks?", "How long is the notice period in months?", "How long was the probation period in weeks?"),
    ("en", "Is the court hearing postponed?", "Has the court hearing been delayed?", "Was the court hearing postponed?", "Are all court hearings postponed?"),
    ("en", "Summarize the tenant's rights in Ontario.", "What rights does a tenant have in Ontario? Summarize them.", "Summarize the tenant's rights in Ontario for month-to-month leases.", "Summarize what is not among the tenant's rights in Ontario."),
    ("en", "Calculate the late fee for 7 days at 2 percent per day.", "What is the late fee for seven days if it is 2% a day?", "Calculate the late fee for 9 days at 2 percent per day.", "Calculate the late fee for 7 days at 2 percent per day under Quebec law."),
    ("en", "When does the warranty on my laptop expire, in 2027?", "Does my laptop's warranty run out in 2027?", "When does the warranty on my laptop expire, in 2029?", "When does the warranty on my laptop start, in 2027?"),
    ("en", "What is the maximum claim in small claims court in dollars?", "What's the highest amount in dollars you can claim in small claims court?", "What is the maximum claim in small claims court in pounds?", "What is the minimum claim in family court in dollars?"),
    # cooking
    ("en", "Is the oven preheated?", "Has the oven finished preheating?", "Was the oven preheated?", "Are both ovens preheated?"),
    ("en", "Give me a recipe for banana bread.", "How do I make banana bread? Share a recipe.", "Give me a recipe for banana bread that uses no sugar.", "Give me a recipe that is not banana bread."),
    ("en", "Scale this soup recipe for 4 people.", "Adjust the soup recipe so that it serves four.", "Scale this soup recipe for 12 people.", "Scale this soup recipe for 4 people using Gordon Ramsay's method."),
    ("en", "What can I cook for dinner tonight?", "Any ideas for what to make for dinner tonight?", "What can I cook for dinner tomorrow?", "What can I cook for breakfast tonight?"),
    ("en", "How many grams are in a cup of flour?", "What does one cup of flour weigh in grams?", "How many ounces are in a cup of flour?", "How many grams were in a cup of sugar?"),
    ("en", "Is the chicken cooked through?", "Is the chicken fully cooked inside?", "Was the chicken cooked through?", "Is all the chicken cooked through?"),
    ("en", "Suggest a vegetarian side dish for roast dinner.", "What vegetarian side would go with a roast dinner?", "Suggest a vegetarian side dish for roast dinner that is gluten-free.", "Suggest a side dish for roast dinner that is not vegetarian."),
    ("en", "Bake the cake at 180 degrees for 35 minutes?", "Should the cake bake for 35 minutes at 180 degrees?", "Bake the cake at 180 degrees for 50 minutes?", "Bake the cake at 180 degrees for 35 minutes in a Miele oven?"),
    ("en", "How do I thaw frozen shrimp before cooking?", "What's the right way to defrost frozen shrimp before I cook them?", "How do I thaw frozen shrimp after cooking?", "How do I freeze fresh shrimp before cooking?"),
    ("en", "How much salt per liter of water for pasta, in grams?", "In grams, how much salt goes into a liter of pasta water?", "How much salt per liter of water for pasta, in teaspoons?", "How much sugar per liter of water for rice, in grams?"),
    # sports
    ("en", "Is the match against Leeds sold out?", "Are there no tickets left for the Leeds match?", "Was the match against Leeds sold out?", "Are all the matches against Leeds sold out?"),
    ("en", "Create a beginner running plan.", "Make me a running plan for beginners.", "Create a beginner running plan for people over sixty.", "Create a plan for beginners that does not include running."),
    ("en", "How many goals did Messi score in 2012?", "What was Messi's goal tally in 2012?", "How many goals did Messi score in 2015?", "How many goals did Ronaldo score in 2012?"),
    ("en", "When does the marathon start on Sunday morning?", "At what time on Sunday morning does the marathon begin?", "When does the marathon start on Saturday morning?", "When does the marathon finish on Sunday morning?"),
    ("en", "What is the pool length in meters?", "How long is the pool, in meters?", "What is the pool length in yards?", "What was the pool depth in meters?"),
    ("en", "Is the tennis court reserved for us?", "Do we have a reservation for the tennis court?", "Was the tennis court reserved for us?", "Is every tennis court reserved for us?"),
    ("en", "Recommend stretches after a workout.", "What stretches should I do once I finish a workout?", "Recommend stretches after a workout for lower back pain.", "Recommend exercises after a workout that are not stretches."),
    ("en", "Log a 10 kilometer run for today.", "Record a 10 km run today.", "Log a 15 kilometer run for today.", "Log a 10 kilometer run for today for Anna."),
    ("en", "When is the next home game in October?", "What's the date of the next home game in October?", "When is the next home game in November?", "When is the next away game in October?"),
    ("en", "How fast did she run the 100 meters in seconds?", "What was her 100 meter time in seconds?", "How fast did she run the 100 meters in minutes?", "How fast did he swim the 100 meters in seconds?"),
    # HR
    ("en", "Is my vacation request approved?", "Has my request for vacation been approved?", "Was my vacation request approved?", "Are all vacation requests approved?"),
    ("en", "Write a job posting for a data analyst.", "Draft a job ad for a data analyst role.", "Write a job posting for a data analyst that requires SQL certification.", "Write a job posting that is not for a data analyst."),
    ("en", "How many vacation days do employees get after 5 years?", "After five years, how many days of vacation does an employee receive?", "How many vacation days do employees get after 8 years?", "How many vacation days do employees at Siemens get after 5 years?"),
    ("en", "Schedule the performance review for Wednesday afternoon.", "Set up the performance review on Wednesday afternoon.", "Schedule the performance review for Friday afternoon.", "Postpone the performance review for Wednesday afternoon."),
    ("en", "What is the annual salary in euros?", "How much is the yearly salary in euros?", "What is the annual salary in dollars?", "What was the monthly salary in euros?"),
    ("en", "Is the new hire starting this week?", "Does the new employee begin this week?", "Was the new hire starting this week?", "Are all the new hires starting this week?"),
    ("en", "Send an onboarding checklist to the new engineer.", "Email the new engineer the onboarding checklist.", "Send an onboarding checklist to the new engineer in the Berlin office.", "Don't send an onboarding checklist to the new engineer."),
    ("en", "Calculate overtime pay for 12 hours at time and a half.", "What's the overtime pay for twelve hours at 1.5 times the rate?", "Calculate overtime pay for 20 hours at time and a half.", "Calculate overtime pay for 12 hours at time and a half for Priya."),
    ("en", "When is the deadline for benefits enrollment in November?", "By what date in November must I enroll in benefits?", "When is the deadline for benefits enrollment in January?", "When is the start of benefits enrollment in November?"),
    ("en", "What is the parental leave in weeks?", "How many weeks of parental leave are there?", "What is the parental leave in days?", "What was the sick leave in weeks?"),
    # retail
    ("en", "Is my order shipped?", "Has my order been sent out?", "Was my order shipped?", "Are all my orders shipped?"),
    ("en", "Find running shoes for flat feet.", "Show me running shoes suitable for flat feet.", "Find running shoes for flat feet under 80 dollars.", "Find shoes for flat feet that are not running shoes."),
    ("en", "Apply a 15 percent discount to my cart.", "Take 15% off the items in my cart.", "Apply a 25 percent discount to my cart.", "Apply a 15 percent discount to my cart from Nike."),
    ("en", "Can I return this jacket before Christmas?", "Is it possible to send this jacket back before Christmas?", "Can I return this jacket before Easter?", "Can I exchange this jacket before Christmas?"),
    ("en", "What does shipping to Canada cost in dollars?", "How many dollars is shipping to Canada?", "What does shipping to Canada cost in euros?", "What did shipping to Mexico cost in dollars?"),
    ("en", "Is the blue sofa in stock?", "Do you have the blue sofa available?", "Was the blue sofa in stock?", "Are all the blue sofas in stock?"),
    ("en", "Recommend a laptop for video editing.", "Which laptop would you suggest for editing video?", "Recommend a laptop for video editing with at least 32 GB of memory.", "Recommend a laptop not meant for video editing."),
    ("en", "Add 2 bags of coffee beans to my basket.", "Put two bags of coffee beans in my basket.", "Add 6 bags of coffee beans to my basket.", "Add 2 bags of coffee beans from Lavazza to my basket."),
    ("en", "When will my package arrive, on Thursday?", "Is my package due to arrive on Thursday?", "When will my package arrive, on Monday?", "When will my package leave, on Thursday?"),
    ("en", "How much is the TV in dollars including tax?", "What's the price of the TV in dollars with tax?", "How much is the TV in pesos including tax?", "How much was the radio in dollars including tax?"),
    # smart home
    ("en", "Is the front door locked?", "Did anyone lock the front door? Is it locked now?", "Was the front door locked?", "Are all the doors locked?"),
    ("en", "Set up a morning routine that turns on the lights.", "Create a morning routine to switch the lights on.", "Set up a morning routine that turns on the lights only on weekdays.", "Set up a morning routine that doesn't turn on the lights."),
    ("en", "Set the thermostat to 21 degrees.", "Change the thermostat setting to 21 degrees.", "Set the thermostat to 24 degrees.", "Set the thermostat in Emma's room to 21 degrees."),
    ("en", "Start the robot vacuum at 9 am.", "Run the robot vacuum at 9 in the morning.", "Start the robot vacuum at 9 pm.", "Stop the robot vacuum at 9 am."),
    ("en", "How much energy did the heater use in kilowatt hours?", "What was the heater's energy use in kWh?", "How much energy did the heater use in joules?", "How much water did the dishwasher use in kilowatt hours?"),
    ("en", "Is the garage door open?", "Is the garage door currently open?", "Was the garage door open?", "Is any garage door open?"),
    ("en", "Show me the camera feed from the backyard.", "Display the backyard camera's live feed.", "Show me the camera feed from the backyard recorded at night.", "Show me the camera feed not from the backyard."),
    ("en", "Dim the living room lights to 30 percent.", "Turn the living room lights down to 30%.", "Dim the living room lights to 60 percent.", "Dim the living room lights to 30 percent when Jonas arrives."),
    ("en", "Turn on the sprinklers at sunset tomorrow.", "Switch the sprinklers on tomorrow at sunset.", "Turn on the sprinklers at sunrise tomorrow.", "Turn off the sprinklers at sunset tomorrow."),
    ("en", "What is the indoor temperature in Celsius?", "What's the temperature inside, in Celsius?", "What is the indoor temperature in Fahrenheit?", "What was the outdoor temperature in Celsius?"),
    # German
    ("de", "Ist der Zug nach München verspätet?", "Hat der Zug nach München Verspätung?", "War der Zug nach München verspätet?", "Sind alle Züge nach München verspätet?"),
    ("de", "Schreib eine Kündigung für meinen Handyvertrag.", "Verfasse ein Kündigungsschreiben für meinen Mobilfunkvertrag.", "Schreib eine Kündigung für meinen Handyvertrag zum Monatsende.", "Schreib keine Kündigung für meinen Handyvertrag."),
    ("de", "Wie viel kosten 3 Kilo Äpfel?", "Was ist der Preis für drei Kilo Äpfel?", "Wie viel kosten 5 Kilo Äpfel?", "Wie viel kosten 3 Kilo Äpfel bei Aldi?"),
    ("de", "Wann öffnet das Museum am Montag?", "Um wie viel Uhr macht das Museum am Montag auf?", "Wann öffnet das Museum am Dienstag?", "Wann schließt das Museum am Montag?"),
    ("zh", "这个箱子重三公斤吗?", "这个箱子的重量是3公斤吗?", "这个箱子重三磅吗?", "那个箱子重五公斤吗?"),
    # French
    ("fr", "Le magasin est-il ouvert le dimanche ?", "Est-ce que le magasin ouvre le dimanche ?", "Le magasin était-il ouvert le dimanche ?", "Tous les magasins sont-ils ouverts le dimanche ?"),
    ("fr", "Trouve un hôtel à Nice avec piscine.", "Cherche-moi un hôtel avec piscine à Nice.", "Trouve un hôtel à Nice avec piscine et parking gratuit.", "Trouve un hôtel à Nice sans piscine."),
    ("fr", "Combien coûtent 2 billets pour Paris ?", "Quel est le prix de deux billets pour Paris ?", "Combien coûtent 4 billets pour Paris ?", "Combien coûtent 2 billets pour Lyon ?"),
    ("fr", "Quelle est la météo demain à Bordeaux ?", "Quel temps fera-t-il demain à Bordeaux ?", "Quelle est la météo aujourd'hui à Bordeaux ?", "Quelle est la météo demain à Marseille ?"),
    ("zh", "从北京到上海有多少公里?", "北京到上海的距离是多少公里?", "从北京到上海有多少英里?", "从广州到上海有多少英里?"),
    # Spanish
    ("es", "¿Está abierta la farmacia ahora?", "¿La farmacia está abierta en este momento?", "¿Estaba abierta la farmacia ahora?", "¿Están abiertas todas las farmacias ahora?"),
    ("es", "Reserva una mesa para cenar esta noche.", "Haz una reserva de mesa para la cena de esta noche.", "Reserva una mesa para cenar esta noche en la terraza.", "No reserves una mesa para cenar esta noche."),
    ("es", "¿Cuánto cuesta un vuelo a Madrid para 2 personas?", "¿Qué precio tiene un vuelo a Madrid para dos personas?", "¿Cuánto cuesta un vuelo a Madrid para 5 personas?", "¿Cuánto cuesta un vuelo a Sevilla para 2 personas?"),
    ("es", "¿A qué hora empieza la clase el lunes?", "¿Cuándo comienza la clase el lunes?", "¿A qué hora empieza la clase el martes?", "¿A qué hora termina la clase el lunes?"),
    ("zh", "这件衣服多少人民币?", "这件衣服的价格是多少人民币?", "这件衣服多少美元?", "那双鞋多少欧元?"),
    # Russian
    ("ru", "Поезд в Москву опаздывает?", "Задерживается ли поезд в Москву?", "Поезд в Москву опаздывал?", "Все поезда в Москву опаздывают?"),
    ("ru", "Включи свет на кухне.", "Зажги свет на кухне.", "Включи свет на кухне в семь вечера.", "Не включай свет на кухне."),
    ("ru", "Сколько стоят 2 билета в театр?", "Какова цена двух билетов в театр?", "Сколько стоят 4 билета в театр?", "Сколько стоят 2 билета в Большой театр?"),
    ("ru", "Когда открывается банк в понедельник?", "Во сколько банк открывается в понедельник?", "Когда открывается банк в пятницу?", "Когда закрывается банк в понедельник?"),
    ("zh", "会议室的温度是多少摄氏度?", "会议室现在有多少摄氏度?", "会议室的温度是多少华氏度?", "办公室的湿度是多少摄氏度?"),
]  # fmt: skip

_NON_ASCII_DIGITS = {
    # the "number" kind also in other scripts: the variant's number written another way
    "Explain the 5 main causes of the French Revolution.": "Explain the ５ main causes of the French Revolution.",
    "Log a 15 kilometer run for today.": "Log a ١٥ kilometer run for today.",
    "Add 6 bags of coffee beans to my basket.": "Add six bags of coffee beans to my basket.",
    "Calculate overtime pay for 20 hours at time and a half.": "Calculate overtime pay for twenty hours at time and a half.",
}  # fmt: skip


def request(text: str) -> dict[str, object]:
    return {"messages": [["system", SYSTEM], ["human", text]], "tools": []}


def pairs() -> list[dict[str, object]]:
    """The 300 pairs, in a fixed order."""
    assert len(ITEMS) == 100, len(ITEMS)
    out: list[dict[str, object]] = []
    for i, (lang, a, para, v1, v2) in enumerate(ITEMS):
        domain = DOMAINS[i // 10] if lang == "en" else "travel_and_daily"
        base = {"lang": lang, "domain": domain}
        out.append({"id": f"h{i}-reuse", "label": "reuse", "kind": "paraphrase", **base,
                    "a": request(a), "b": request(para)})  # fmt: skip
        for j, variant in enumerate((v1, v2)):
            kind = CYCLE[(2 * i + j) % 10]
            variant = _NON_ASCII_DIGITS.get(variant, variant)
            out.append({"id": f"h{i}-{kind}", "label": "distinct", "kind": kind, **base,
                        "a": request(a), "b": request(variant)})  # fmt: skip
    return out


def write(rows: list[dict[str, object]], out: Path) -> None:
    """Write ``rows`` to ``out`` as JSON lines and say how many are not in English."""
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    n_other = sum(r["lang"] != "en" for r in rows)
    print(f"{len(rows)} pairs, {n_other} not in English, written to {out}")


def main() -> None:
    write(pairs(), OUT)


if __name__ == "__main__":
    main()
