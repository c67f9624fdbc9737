"""Write ``benchmarks/reuse_pairs.jsonl``: labelled request pairs for reuse by meaning.

Run ``python -m benchmarks.reuse_pairs_gen`` to rewrite the file (deterministic).
Each line is one pair::

    {"id": "para-weather-3", "label": "reuse" | "distinct", "category": "...",
     "a": REQUEST, "b": REQUEST}

A REQUEST is ``{"messages": [[role, text], ...], "tools": [name, ...]}`` (roles
``system``, ``human``, ``ai``). ``reuse`` pairs ask the same thing in other words;
``distinct`` pairs must never be served each other's answer: negations and
opposites, swapped roles, other entities, other numbers or dates, other tools,
other conversation context, and unrelated requests of the same domain. Written
from templates filled with hand-picked values, plus hand-written pairs.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "reuse_pairs.jsonl"

CITIES = ["Paris", "Berlin", "Tokyo", "Lagos", "Lima", "Oslo", "Denver", "Mumbai", "Cairo", "Seoul"]
COUNTRIES = ["France", "Kenya", "Peru", "Norway", "Japan", "Canada", "Egypt", "Chile", "Spain"]
PEOPLE = ["Alice", "Bob", "Priya", "Mateo", "Chen", "Fatima", "Olga", "Tom", "Yuki", "Amara"]
DAYS = ["Monday", "Tuesday", "Friday", "Saturday", "tomorrow", "next Wednesday"]
DATES = ["March 3", "June 14", "October 9", "December 24", "January 2", "July 30"]
LANGS = ["French", "German", "Spanish", "Japanese", "Swahili", "Italian"]
PHRASES = ["good morning", "thank you very much", "where is the station", "happy birthday"]
CURRENCIES = ["USD", "EUR", "JPY", "GBP", "INR", "CHF"]
COMPANIES = ["Acme Corp", "Globex", "Initech", "Umbrella Labs", "Hooli", "Stark Industries"]
TOPICS = ["budget", "launch", "hiring", "security review", "roadmap", "offsite"]
WORDS = ["ephemeral", "ubiquitous", "serendipity", "latency", "idempotent", "entropy"]
DISHES = ["lasagna", "pad thai", "falafel", "risotto", "ramen", "paella"]

SYSTEM = "You are a helpful assistant. Answer briefly."


def req(*turns: tuple[str, str], tools: list[str] | None = None, system: bool = True) -> Any:
    msgs = [["system", SYSTEM]] if system else []
    msgs += [[r, t] for r, t in turns]
    return {"messages": msgs, "tools": tools or []}


def h(text: str, **kw: Any) -> Any:
    return req(("human", text), **kw)


# Paraphrase families: each is a list of phrasings of one request with slots.
PARAPHRASES: dict[str, tuple[list[str], dict[str, list[str]]]] = {
    "weather": (
        [
            "What's the weather going to be in {city} {day}?",
            "How will the weather be in {city} {day}?",
            "Give me the weather forecast for {city} for {day}.",
            "What is the forecast for {city} {day}?",
        ],
        {"city": CITIES, "day": DAYS},
    ),
    "capital": (
        [
            "What is the capital of {country}?",
            "Which city is the capital of {country}?",
            "Tell me the capital city of {country}.",
            "Name the capital of {country}.",
        ],
        {"country": COUNTRIES},
    ),
    "convert": (
        [
            "Convert {n} {c1} to {c2}.",
            "How much is {n} {c1} in {c2}?",
            "What is {n} {c1} worth in {c2}?",
            "Please change {n} {c1} into {c2}.",
        ],
        {"n": ["50", "120", "999", "3000", "75"], "c1": CURRENCIES[:3], "c2": CURRENCIES[3:]},
    ),
    "translate": (
        [
            "Translate '{phrase}' into {lang}.",
            "How do you say '{phrase}' in {lang}?",
            "What is '{phrase}' in {lang}?",
            "Give me the {lang} translation of '{phrase}'.",
        ],
        {"phrase": PHRASES, "lang": LANGS},
    ),
    "email": (
        [
            "Write an email to {person} about the {topic} meeting on {day}.",
            "Draft an email to {person} regarding the {topic} meeting on {day}.",
            "Compose a short email for {person} about {day}'s {topic} meeting.",
        ],
        {"person": PEOPLE, "topic": TOPICS, "day": DAYS[:4]},
    ),
    "sum": (
        [
            "What is {a} plus {b}?",
            "Add {a} and {b}.",
            "Compute the sum of {a} and {b}.",
            "What do you get when you add {a} to {b}?",
        ],
        {"a": ["17", "245", "8", "1024", "63"], "b": ["38", "19", "512", "7", "400"]},
    ),
    "define": (
        [
            "Define the word '{word}'.",
            "What does '{word}' mean?",
            "What is the meaning of '{word}'?",
            "Explain what '{word}' means.",
        ],
        {"word": WORDS},
    ),
    "recipe": (
        [
            "Give me a recipe for {dish} for {n} people.",
            "How do I cook {dish} for {n} people?",
            "I need a {dish} recipe that serves {n}.",
        ],
        {"dish": DISHES, "n": ["2", "4", "6", "8"]},
    ),
    "ceo": (
        [
            "Who is the CEO of {company}?",
            "Who runs {company} as chief executive?",
            "Tell me who the chief executive of {company} is.",
        ],
        {"company": COMPANIES},
    ),
    "flight": (
        [
            "Find flights from {c1} to {c2} on {date}.",
            "Search for flights {c1} to {c2} on {date}.",
            "Are there flights from {c1} to {c2} on {date}?",
            "Show me {date} flights from {c1} to {c2}.",
        ],
        {"c1": CITIES[:5], "c2": CITIES[5:], "date": DATES},
    ),
    "reminder": (
        [
            "Remind me to call {person} at {time}.",
            "Set a reminder at {time} to call {person}.",
            "At {time}, remind me to phone {person}.",
        ],
        {"person": PEOPLE, "time": ["9 am", "3:30 pm", "noon", "7 pm"]},
    ),
    "population": (
        [
            "What is the population of {city}?",
            "How many people live in {city}?",
            "How many inhabitants does {city} have?",
        ],
        {"city": CITIES},
    ),
    "summarize": (
        [
            "Summarize the {topic} report from {person} in three bullet points.",
            "Give me a three bullet point summary of {person}'s {topic} report.",
            "Sum up the {topic} report by {person} in three bullets.",
        ],
        {"person": PEOPLE, "topic": TOPICS},
    ),
    "table": (
        [
            "Book a table for {n} at {time} on {day}.",
            "Reserve a table for {n} people at {time} on {day}.",
            "Can you get us a table for {n} on {day} at {time}?",
        ],
        {"n": ["2", "4", "5"], "time": ["7 pm", "8:30 pm", "noon"], "day": DAYS[:4]},
    ),
}

# Requests with their opposite: (request, opposite). A paraphrase of the first is
# reuse, the opposite is distinct.
OPPOSITES: list[tuple[str, str, str]] = [
    ("Turn on dark mode.", "Turn off dark mode.", "Please enable dark mode."),
    ("Enable two-factor authentication.", "Disable two-factor authentication.", None),
    ("Turn the notifications on.", "Turn the notifications off.", "Switch on the notifications."),
    (
        "Add milk to my shopping list.",
        "Remove milk from my shopping list.",
        "Put milk on my shopping list.",
    ),
    ("Increase the volume.", "Decrease the volume.", "Turn the volume up."),
    ("Lock the front door.", "Unlock the front door.", None),
    ("Show hidden files in the file browser.", "Hide hidden files in the file browser.", None),
    ("Is it safe to eat raw cookie dough?", "Is it unsafe to eat raw cookie dough?", None),
    (
        "List hotels in Lisbon with a pool.",
        "List hotels in Lisbon without a pool.",
        "Which Lisbon hotels have a pool?",
    ),
    ("Should I buy Globex stock now?", "Should I sell Globex stock now?", None),
    (
        "Which is the largest planet in the solar system?",
        "Which is the smallest planet in the solar system?",
        "What is the biggest planet in our solar system?",
    ),
    (
        "What happened before the French Revolution?",
        "What happened after the French Revolution?",
        None,
    ),
    (
        "Include archived projects in the report.",
        "Exclude archived projects from the report.",
        None,
    ),
    ("Start the backup job.", "Stop the backup job.", "Kick off the backup job."),
    ("Open the garage door.", "Close the garage door.", None),
    (
        "Accept the meeting invitation from Priya.",
        "Decline the meeting invitation from Priya.",
        "Say yes to Priya's meeting invitation.",
    ),
    ("Allow cookies on this site.", "Block cookies on this site.", None),
    ("Mark the email from Tom as read.", "Mark the email from Tom as unread.", None),
    ("Sort the list in ascending order.", "Sort the list in descending order.", None),
    ("Make the text bold.", "Make the text not bold.", None),
    ("Do I need a visa to visit Japan?", "Do I not need a visa to visit Japan?", None),
    ("Can dogs eat grapes?", "Can dogs not eat grapes?", None),
    (
        "Give me reasons to learn Rust.",
        "Give me reasons not to learn Rust.",
        "Why should I learn Rust?",
    ),
    ("Upgrade my plan to premium.", "Downgrade my plan from premium.", None),
    ("Follow Chen on the team channel.", "Unfollow Chen on the team channel.", None),
    ("Mute the microphone.", "Unmute the microphone.", None),
    (
        "Subscribe me to the newsletter.",
        "Unsubscribe me from the newsletter.",
        "Sign me up for the newsletter.",
    ),
    (
        "Which countries have the highest inflation?",
        "Which countries have the lowest inflation?",
        None,
    ),
    ("Is the museum open on Mondays?", "Is the museum closed on Mondays?", None),
    ("Zoom in on the map.", "Zoom out on the map.", None),
    ("Connect to the VPN.", "Disconnect from the VPN.", None),
    (
        "Tell me the pros of remote work.",
        "Tell me the cons of remote work.",
        "What are the advantages of remote work?",
    ),
    ("Is coffee good for your health?", "Is coffee bad for your health?", None),
    ("Pause the music.", "Resume the music.", None),
    ("Archive the thread with Olga.", "Unarchive the thread with Olga.", None),
    ("I want a vegetarian dish with cheese.", "I want a vegetarian dish without cheese.", None),
    ("Find me warm places to visit in winter.", "Find me cold places to visit in winter.", None),
    ("Show me the cheapest laptop.", "Show me the most expensive laptop.", None),
    (
        "What are the benefits of fasting?",
        "What are the risks of fasting?",
        "What are the advantages of fasting?",
    ),
    ("Always reply in English.", "Never reply in English.", None),
]

# Pairs that swap two roles.
SWAPS: list[tuple[str, list[tuple[str, str]]]] = [
    ("Convert {n} {x} to {y}.", [(a, b) for a, b in itertools.pairwise(CURRENCIES)]),
    ("Find flights from {x} to {y} on June 14.", [(a, b) for a, b in itertools.pairwise(CITIES)]),
    (
        "{x} sent 40 dollars to {y}; write a thank-you note from the receiver.",
        [(a, b) for a, b in itertools.pairwise(PEOPLE)],
    ),
    ("Is {x} bigger than {y}?", [("Spain", "Chile"), ("Peru", "Kenya"), ("Norway", "Japan")]),
    (
        "Translate this sentence from {x} to {y}: the train is late.",
        [(a, b) for a, b in itertools.pairwise(LANGS)],
    ),
    ("How far is it to drive from {x} to {y}?", [("Paris", "Berlin"), ("Oslo", "Lima")]),
]
LOWER_SWAPS = [
    ("Does the dog chase the cat in the story?", "Does the cat chase the dog in the story?"),
    (
        "Write a story where the teacher learns from the student.",
        "Write a story where the student learns from the teacher.",
    ),
    ("Is a lion faster than a horse?", "Is a horse faster than a lion?"),
    ("Explain why the buyer sued the seller.", "Explain why the seller sued the buyer."),
    (
        "Move the file from the inbox folder to the archive folder.",
        "Move the file from the archive folder to the inbox folder.",
    ),
    (
        "Copy the settings from staging to production.",
        "Copy the settings from production to staging.",
    ),
    ("Subtract 12 from 30.", "Subtract 30 from 12."),
    ("Divide 100 by 4.", "Divide 4 by 100."),
    ("Is water denser than ice?", "Is ice denser than water?"),
    ("Merge the feature branch into main.", "Merge main into the feature branch."),
]

# Tools: same messages, other tool schema (a model with other tools can answer otherwise).
TOOLSETS = [["get_weather"], ["search_web"], ["get_weather", "search_web"], ["calendar"], []]

# Same last message, other context.
CONTEXTS: list[tuple[list[tuple[str, str]], list[tuple[str, str]], str]] = [
    (
        [("human", "I am planning a trip to Tokyo.")],
        [("human", "I am planning a trip to Oslo.")],
        "What should I pack?",
    ),
    (
        [("human", "My order number is 4471.")],
        [("human", "My order number is 9120.")],
        "Where is my order?",
    ),
    (
        [("human", "I use Python.")],
        [("human", "I use Java.")],
        "How do I read a file line by line?",
    ),
    (
        [("human", "I'm allergic to peanuts.")],
        [("human", "I'm vegan.")],
        "Suggest a dessert for tonight.",
    ),
    (
        [("human", "Let's talk about the Roman Empire.")],
        [("human", "Let's talk about the Ming dynasty.")],
        "When did it fall?",
    ),
    (
        [("human", "Here is my code: print(1/0)")],
        [("human", "Here is my code: print(int('x'))")],
        "Why does it crash?",
    ),
    ([("human", "I live in Denver.")], [("human", "I live in Mumbai.")], "What time is it here?"),
    (
        [("human", "Our budget is 500 dollars.")],
        [("human", "Our budget is 5000 dollars.")],
        "Which camera should we buy?",
    ),
    (
        [("human", "The patient is 8 years old.")],
        [("human", "The patient is 80 years old.")],
        "What dose of ibuprofen is typical?",
    ),
    (
        [("human", "I'm writing to my landlord.")],
        [("human", "I'm writing to my grandmother.")],
        "Make this message more polite: please fix it.",
    ),
    (
        [("human", "Consider the list [3, 1, 2].")],
        [("human", "Consider the list [9, 8, 7].")],
        "Sort it.",
    ),
    (
        [("human", "Context: the meeting moved to Friday.")],
        [("human", "Context: the meeting was cancelled.")],
        "Update the invite text.",
    ),
    (
        [("human", "We are discussing Bob's promotion.")],
        [("human", "We are discussing Bob's termination.")],
        "Draft the announcement.",
    ),
    (
        [
            ("human", "I want to learn to cook Italian food."),
            ("ai", "Great, let's start with pasta."),
        ],
        [("human", "I want to learn to cook Thai food."), ("ai", "Great, let's start with curry.")],
        "What should I buy first?",
    ),
    (
        [("human", "My flight lands at 6 am.")],
        [("human", "My flight lands at 11 pm.")],
        "Will the airport train be running?",
    ),
]

# Unrelated requests of one domain that a loose cache would collide.
COLLISIONS = [
    ("How do I reset my password?", "How do I change my email address?"),
    ("How do I cancel my subscription?", "How do I pause my subscription?"),
    ("What are your opening hours?", "What are your delivery hours?"),
    ("Write a haiku about autumn.", "Write a limerick about autumn."),
    ("Explain recursion to a beginner.", "Explain recursion to an expert."),
    (
        "Write a Python function that reverses a string.",
        "Write a Python function that checks whether a string is a palindrome.",
    ),
    (
        "What is the boiling point of water at sea level?",
        "What is the freezing point of water at sea level?",
    ),
    ("How many calories are in a banana?", "How much potassium is in a banana?"),
    (
        "Summarize this article in one sentence.",
        "Translate this article into one sentence of French.",
    ),
    ("What is a good name for a golden retriever?", "What is a good name for a black cat?"),
    ("Give me a SQL query that counts users.", "Give me a SQL query that deletes users."),
    ("What is the time complexity of quicksort?", "What is the space complexity of quicksort?"),
    ("Recommend a sci-fi book.", "Recommend a sci-fi movie."),
    ("What's a healthy breakfast?", "What's a healthy dinner?"),
    ("How do I get to the airport by bus?", "How do I get to the airport by taxi?"),
]

# Hand-written paraphrases (with conversation context where it matters).
HAND_REUSE: list[tuple[Any, Any]] = [
    (h("How do I reset my password?"), h("What are the steps to reset my password?")),
    (h("Explain recursion in simple terms."), h("Can you explain recursion simply?")),
    (h("Write a haiku about the ocean."), h("Compose a haiku about the ocean.")),
    (h("What are the symptoms of the flu?"), h("What symptoms does the flu cause?")),
    (h("Recommend a good sci-fi book."), h("Can you suggest a good science fiction book?")),
    (h("How do I make cold brew coffee?"), h("What's the way to make cold brew coffee?")),
    (
        h("Write a Python function that reverses a string."),
        h("Give me a Python function to reverse a string."),
    ),
    (h("What is the speed of light?"), h("How fast does light travel?")),
    (h("Explain how vaccines work."), h("How do vaccines work?")),
    (h("What is photosynthesis?"), h("Explain photosynthesis.")),
    (h("List three tips for better sleep."), h("Give me three tips to sleep better.")),
    (h("How do I center a div in CSS?"), h("What's the way to center a div with CSS?")),
    (
        h("What is the difference between a list and a tuple in Python?"),
        h("How does a Python list differ from a tuple?"),
    ),
    (h("Tell me a joke about programmers."), h("Tell me a programmer joke.")),
    (h("What causes the seasons on Earth?"), h("Why does Earth have seasons?")),
    (
        req(
            ("human", "I'm planning a trip to Tokyo."),
            ("ai", "Sounds fun!"),
            ("human", "What should I pack?"),
        ),
        req(
            ("human", "I'm planning a trip to Tokyo."),
            ("ai", "Sounds fun!"),
            ("human", "What do I need to pack?"),
        ),
    ),
    (
        req(("human", "My order number is 4471."), ("human", "Where is my order?")),
        req(("human", "My order number is 4471."), ("human", "Where's my order right now?")),
    ),
    (h("Summarize the plot of Hamlet."), h("Give me a summary of Hamlet's plot.")),
    (h("How many legs does a spider have?"), h("How many legs do spiders have?")),
    (
        h("What is the boiling point of water at sea level?"),
        h("At sea level, at what temperature does water boil?"),
    ),
]


def fill(template: str, values: dict[str, str]) -> str:
    return template.format(**values)


def main() -> None:
    rng = random.Random(16)
    pairs: list[dict[str, Any]] = []

    def add(label: str, category: str, a: Any, b: Any) -> None:
        pairs.append(
            {"id": f"{category}-{len(pairs)}", "label": label, "category": category, "a": a, "b": b}
        )

    # paraphrases from templates: 9 per family, two phrasings, same slot values
    for family, (templates, slots) in PARAPHRASES.items():
        for _ in range(9):
            values = {k: rng.choice(v) for k, v in slots.items()}
            t1, t2 = rng.sample(templates, 2)
            add("reuse", f"paraphrase:{family}", h(fill(t1, values)), h(fill(t2, values)))
    for a, b in HAND_REUSE:
        add("reuse", "paraphrase:hand", a, b)
    for base, _, para in OPPOSITES:
        if para:
            add("reuse", "paraphrase:opposites", h(base), h(para))
    # the same tool query, reworded (tool call arguments)
    for city in CITIES[:6]:
        add(
            "reuse",
            "paraphrase:tool",
            {"tool": "search_web", "args": {"query": f"weather in {city} this weekend"}},
            {"tool": "search_web", "args": {"query": f"{city} weather this weekend"}},
        )

    # other entities, numbers and dates: one template, one slot changed
    for family, (templates, slots) in PARAPHRASES.items():
        for slot, choices in slots.items():
            for _ in range(3 if len(slots) > 1 else 5):
                values = {k: rng.choice(v) for k, v in slots.items()}
                other = dict(values)
                other[slot] = rng.choice([c for c in choices if c != values[slot]])
                t1, t2 = rng.choice(templates), rng.choice(templates)
                kind = (
                    "number"
                    if slot in ("n", "a", "b", "time")
                    else "date"
                    if slot in ("day", "date")
                    else "entity"
                )
                add("distinct", f"{kind}:{family}", h(fill(t1, values)), h(fill(t2, other)))
    # negations and opposites
    for base, opposite, _ in OPPOSITES:
        add("distinct", "negation", h(base), h(opposite))
    # swapped roles
    for template, xs in SWAPS:
        for x, y in xs[:4]:
            n = rng.choice(["100", "250", "40"])
            add(
                "distinct",
                "role_swap",
                h(template.format(x=x, y=y, n=n)),
                h(template.format(x=y, y=x, n=n)),
            )
    for a, b in LOWER_SWAPS:
        add("distinct", "role_swap", h(a), h(b))
    # other tools bound to the model
    for family in ("weather", "flight", "capital", "reminder"):
        templates, slots = PARAPHRASES[family]
        for _ in range(3):
            values = {k: rng.choice(v) for k, v in slots.items()}
            t1, t2 = rng.sample(TOOLSETS, 2)
            text = fill(rng.choice(templates), values)
            add("distinct", "tools", h(text, tools=t1), h(text, tools=t2))
    # other conversation context, same last message
    for ctx_a, ctx_b, last in CONTEXTS:
        add("distinct", "context", req(*ctx_a, ("human", last)), req(*ctx_b, ("human", last)))
    # other system prompt
    for text in ("Write a welcome message.", "Describe our refund policy.", "Greet the user."):
        a = {"messages": [["system", "You answer in English."], ["human", text]], "tools": []}
        b = {"messages": [["system", "You answer in German."], ["human", text]], "tools": []}
        add("distinct", "context", a, b)
    # unrelated requests of one domain
    for a, b in COLLISIONS:
        add("distinct", "collision", h(a), h(b))
    # tool calls with other arguments
    for c1, c2 in zip(CITIES, CITIES[3:], strict=False):
        add(
            "distinct",
            "tool_args",
            {"tool": "search_web", "args": {"query": f"weather in {c1} this weekend"}},
            {"tool": "search_web", "args": {"query": f"weather in {c2} this weekend"}},
        )

    OUT.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs))
    n_reuse = sum(p["label"] == "reuse" for p in pairs)
    print(
        f"wrote {OUT.name}: {len(pairs)} pairs ({n_reuse} reuse, {len(pairs) - n_reuse} distinct)"
    )


if __name__ == "__main__":
    main()
