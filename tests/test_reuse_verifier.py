"""Issue 34, third round: the structural contrast check in any supported language.

The issue's multilingual and number cases run end to end through the public API
(``SemanticReuse(LocalEmbeddings(), scope=...)`` with the default settings, a
one-node graph, a counting model on the embedded PostgreSQL 18): the model must
answer the second request itself. The rules added in this round are checked on
the contrast check alone, each with a paraphrase it must still let through.
"""

from __future__ import annotations

# ruff: noqa: RUF001  (requests in other scripts are what these tests check)
import uuid
from pathlib import Path
from typing import Any

import pytest

from examples.fake_openai.models import ScriptedChatModel, read_calls
from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.reuse import SemanticReuse, contrast, language
from langgraph_actionckpt.reuse.contrast import _features, _from_to_swapped

from .conftest import drop_schema, new_schema_name
from .test_reuse import embeddings, llm_graph, llm_row, needs_model

__all__ = ["embeddings"]  # the module-scoped model fixture, shared with test_reuse

# (id, cached request, new request): the new one must not be served the cached answer.
ISSUE_CASES = [
    ("full-width-digits", "Book a table for 4 people tonight.",
     "Book a table for ５ people tonight."),
    ("arabic-indic-digits", "Book a table for 4 people tonight.",
     "Book a table for ٥ people tonight."),
    ("chinese-numerals", "帮我订三张电影票。", "帮我订五张电影票。"),
    ("german-nicht", "Schalte das Licht in der Küche ein.",
     "Schalte das Licht in der Küche nicht ein."),
    ("russian-ne", "Включи свет", "Не включай свет"),
    ("forty-sixty", "Order forty blue pens for the office.",
     "Order sixty red pens for the office."),
    ("seventy-ninety", "Reserve ninety seats for the gala.",
     "Reserve seventy chairs for the gala."),
]  # fmt: skip


@needs_model
def test_the_issues_cases_are_refused_end_to_end(
    pg18_dsn: str, tmp_path: Path, embeddings: Any
) -> None:
    calls = str(tmp_path / "calls.jsonl")
    model = ScriptedChatModel(calls_file=calls)
    schema = new_schema_name()
    # a paraphrase first: the same setup does serve what means the same
    cases = [
        ("paraphrase", "What is the capital of France?", "Which city is the capital of France?")
    ]
    served: dict[str, bool] = {}
    try:
        with ActionSaver.from_conn_string(pg18_dsn, schema=schema, setup=True) as saver:
            graph = llm_graph(model, "sync").compile(checkpointer=saver)
            for name, a, b in cases + ISSUE_CASES:
                policy = SemanticReuse(embeddings, scope=f"case-{name}")
                for q in (a, b):
                    before = len(read_calls(calls))
                    conf = {"thread_id": f"t-{uuid.uuid4().hex[:10]}", "actionckpt_reuse": policy}
                    graph.invoke({"q": q, "out": []}, {"configurable": conf})
                served[name] = len(read_calls(calls)) == before
                if name != "paraphrase":
                    row = llm_row(saver.list_actions(conf["thread_id"]))
                    assert row.meta.get("reused_from") is None, name
    finally:
        drop_schema(pg18_dsn, schema)
    assert served == {"paraphrase": True, **{name: False for name, _, _ in ISSUE_CASES}}


# (id, a, b, reason): the rules of the third round, in both directions.
REFUSED_ROUND_3 = [
    ("ja-negation", "郵便局は今開いていますか?", "郵便局はなぜ今開いていないのですか?",
     "negation differs"),
    ("ja-past", "郵便局は今開いていますか?", "郵便局は開いていましたか?", "tense differs"),
    ("ja-all", "郵便局は今開いていますか?", "郵便局はすべて今開いていますか?",
     "quantifier differs"),
    ("ar-past", "هل المخبز مفتوح الآن؟", "هل كان المخبز مفتوحا؟", "tense differs"),
    ("ar-all", "هل المخبز مفتوح الآن؟", "هل كل المخابز مفتوحة الآن؟", "quantifier differs"),
    ("ar-negation", "هل المخبز مفتوح الآن؟", "هل المخبز ليس مفتوح الآن؟", "negation differs"),
    ("future-perfect", "Have the seedlings been watered?", "Will the seedlings be watered?",
     "tense differs"),
    ("several", "Suggest a camera bag for hiking.", "Suggest several camera bags for hiking.",
     "quantifier differs"),
    ("plural", "Recommend a telescope for viewing planets.",
     "Recommend telescopes for viewing planets.", "singular against plural"),
    ("units-two-edits", "How heavy is a grand piano in kilograms?",
     "How heavy is an upright piano in pounds?", "units differ"),
    ("units-ru", "Сколько стоит 2 килограмма яблок?", "Сколько стоит 2 фунта яблок?",
     "units differ"),
    ("prefix-opposite", "Remind me to bring the geraniums indoors.",
     "Remind me to take the geraniums outdoors.", "opposite words"),
    ("prefix-opposite-ru", "Включи свет на кухне.", "Выключи свет на кухне.", "opposite words"),
    ("function-word", "Is the music school closed from December 20?",
     "Is the music school closed until December 20?", "a word replaced"),
    ("ja-clause-inserted", "東京から大阪まで何キロですか?",
     "東京から大阪まで高速道路で何キロですか?", "a clause added or dropped"),
    ("clause-inserted-long", "Is the pool open on Sunday?",
     "Is the pool open for members with a guest pass and towels on Sunday?",
     "a clause added or dropped"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("a", "b", "why"), [c[1:] for c in REFUSED_ROUND_3], ids=[c[0] for c in REFUSED_ROUND_3]
)
def test_contrast_refuses_in_any_supported_language(a: str, b: str, why: str) -> None:
    assert contrast(f"human: {a}", f"human: {b}") == why
    assert contrast(f"human: {b}", f"human: {a}") == why


PARAPHRASES_ROUND_3 = [
    # "how many" asks a question, it quantifies nothing
    ("What is the population of Cairo?", "How many people live in Cairo?"),
    # a future against a present asks about the same time
    ("When does the pool open on Sunday?", "When will the pool be open on Sunday?"),
    # one unit however it is written
    ("How many km is it from Paris to Lyon?",
     "What is the distance from Paris to Lyon in kilometers?"),
    ("How much energy did the heater use in kilowatt hours?",
     "What was the heater's energy use in kWh?"),
    ("この荷物は何キロありますか?", "この荷物の重さは何キログラムですか?"),
    # a unit on one side only is not a change of unit
    ("How far is the airport from the hotel?",
     "What distance in kilometers separates the hotel and the airport?"),
]  # fmt: skip


@pytest.mark.parametrize(("a", "b"), PARAPHRASES_ROUND_3)
def test_paraphrases_the_new_rules_let_through(a: str, b: str) -> None:
    assert contrast(f"human: {a}", f"human: {b}") is None
    assert contrast(f"human: {b}", f"human: {a}") is None


# Issue 34, fourth round: (id, cached request, new request, reason). Each new rule,
# end to end, beside a paraphrase of the same shape that must still be served.
REFUSED_ROUND_4 = [
    ("two-elements-replaced",
     "Is oat milk healthier than cow's milk for toddlers? Give a pros and cons table.",
     "Is almond milk healthier than goat's milk for toddlers? Give a pros and cons table.",
     "elements replaced"),
    ("output-format-reworded",
     "Find a raincoat under 100 dollars and list three options as bullet points.",
     "Find a raincoat under 100 dollars and describe three options in a paragraph.",
     "elements replaced"),
    ("future-against-present", "Is the power back on in Riverside?",
     "Will the power be back on in Riverside?", "tense differs"),
    ("bare-currency-character", "把两百元从我的支付宝转到微信。",
     "把两百美元从我的支付宝转到微信。", "units differ"),
]  # fmt: skip
# (id, cached request, new request): the same shapes, same meaning: served.
SERVED_ROUND_4 = [
    ("near-synonyms-replaced", "Write an email to Fatima about the offsite meeting on Saturday.",
     "Draft an email to Fatima regarding the offsite meeting on Saturday."),
    ("future-going-to", "Will the landlord renew the lease?",
     "Is the landlord going to renew the lease?"),
]  # fmt: skip


def served_and_refused(
    dsn: str, tmp_path: Path, embeddings: Any, served: list[Any], refused: list[Any], tag: str
) -> None:
    """Run each (id, cached, new) pair end to end: ``served`` pairs must be served, ``refused``
    ones refused, each by the rule its fourth element names (above the threshold)."""
    calls = str(tmp_path / "calls.jsonl")
    model = ScriptedChatModel(calls_file=calls)
    schema = new_schema_name()
    seen: dict[str, bool] = {}
    refused_why: dict[str, str] = {}
    try:
        with ActionSaver.from_conn_string(dsn, schema=schema, setup=True) as saver:
            graph = llm_graph(model, "sync").compile(checkpointer=saver)
            for name, a, b, *_ in served + refused:
                policy = SemanticReuse(embeddings, scope=f"{tag}-{name}")
                for q in (a, b):
                    before = len(read_calls(calls))
                    conf = {"thread_id": f"t-{uuid.uuid4().hex[:10]}", "actionckpt_reuse": policy}
                    graph.invoke({"q": q, "out": []}, {"configurable": conf})
                seen[name] = len(read_calls(calls)) == before
                row = llm_row(saver.list_actions(conf["thread_id"]))
                for refusal in (row.meta.get("reuse_miss") or {}).get("refused", []):
                    refused_why[name] = refusal["reason"]
    finally:
        drop_schema(dsn, schema)
    assert seen == {
        **{name: True for name, *_ in served},
        **{name: False for name, *_ in refused},
    }
    assert {name: refused_why.get(name) for name, *_ in refused} == {
        name: why for name, _, _, why in refused
    }


@needs_model
def test_round_4_rules_end_to_end(pg18_dsn: str, tmp_path: Path, embeddings: Any) -> None:
    served_and_refused(pg18_dsn, tmp_path, embeddings, SERVED_ROUND_4, REFUSED_ROUND_4, "round4")


@needs_model
def test_replaced_elements_need_the_model_to_be_let_through(embeddings: Any) -> None:
    a, b = SERVED_ROUND_4[0][1:]
    # without the model's view of the replaced words the check errs on refusing
    assert contrast(f"human: {a}", f"human: {b}") == "elements replaced"
    assert contrast(f"human: {a}", f"human: {b}", embeddings.embed_documents) is None
    assert contrast(f"human: {b}", f"human: {a}", embeddings.embed_documents) is None


def test_a_future_with_a_date_asks_about_that_date() -> None:
    # the date pins both to one time: a future against a present is then the same question
    assert (
        contrast("human: Is the pool open on Sunday?", "human: Will the pool be open on Sunday?")
        is None
    )
    assert contrast("human: Is the pool open?", "human: Will the pool be open?") == "tense differs"


# Issue 34, fifth round: (id, cached request, new request, reason), from the development
# sets (held-out set #4's misses) or made up, end to end beside paraphrases of the same shape.
REFUSED_ROUND_5 = [
    ("format-sentence-replaced",
     "Which produces more methane, landfills or cattle? Answer in a paragraph.",
     "Which produces more methane, landfills or cattle? Give me just the numbers in a table.",
     "a sentence replaced"),
    ("format-sentence-replaced-fr",
     "Le vélo est-il plus rapide que le métro pour aller au bureau ? Réponds en une phrase.",
     "Le vélo est-il plus rapide que le métro pour aller au bureau ? "
     "Réponds avec un tableau des temps de trajet.",
     "a sentence replaced"),
    ("roles-swapped-inflected", "Przelej 200 złotych z mojego konta na konto Kasi.",
     "Przelej 200 złotych z konta Kasi na moje konto.", "same words, other order"),
]  # fmt: skip
SERVED_ROUND_5 = [
    ("format-sentence-reworded", "Is the tram faster than the bus? Explain in two sentences.",
     "Is the tram faster than the bus? Use two sentences to explain."),
    ("compound-number-words", "Order 200 flyers for the spring fair.",
     "Order two hundred flyers for the spring fair."),
]  # fmt: skip


@needs_model
def test_round_5_rules_end_to_end(pg18_dsn: str, tmp_path: Path, embeddings: Any) -> None:
    served_and_refused(pg18_dsn, tmp_path, embeddings, SERVED_ROUND_5, REFUSED_ROUND_5, "round5")


@needs_model
def test_a_replaced_sentence_needs_the_model_to_be_let_through(embeddings: Any) -> None:
    a, b = SERVED_ROUND_5[0][1:]
    assert contrast(f"human: {a}", f"human: {b}") == "a sentence replaced"
    assert contrast(f"human: {a}", f"human: {b}", embeddings.embed_documents) is None
    # a request of one sentence never has the shape: its neighbour is the role prefix
    assert contrast("human: Is the tram late?", "human: Is the bus late?") != "a sentence replaced"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Book the court for 45 minutes.", "Book the court for forty-five minutes."),
        ("Mail 150 flyers to Birchwood.", "Mail one hundred and fifty flyers to Birchwood."),
        ("Raise my coverage to 5 million euros.", "Raise my coverage to five million euros."),
        # inflected forms, one element moved: no role changes hands
        ("Quanto pesa la valigia in chili?", "Quanti chili pesa la valigia?"),
    ],
)
def test_compound_numbers_and_moved_words_are_let_through(a: str, b: str) -> None:
    assert contrast(f"human: {a}", f"human: {b}") is None
    assert contrast(f"human: {b}", f"human: {a}") is None


def test_digits_next_to_each_other_stay_two_numbers() -> None:
    assert contrast("human: Seat 20 5 people.", "human: Seat 25 people.") == "numbers differ"


# Issue 34, sixth round: (id, cached request, new request, reason), from the development
# sets (held-out sets #4 and #5) or made up, in languages no cue list of the check knows.
REFUSED_ROUND_6 = [
    ("hindi-name-with-vowel-signs", "मेरे खाते से राहुल के खाते में 2000 रुपये भेजो।",
     "मेरे खाते से प्रिया के खाते में 2000 रुपये भेजो।", "a word replaced"),
    ("dutch-geen", "Bestel 4 pizza's voor vrijdag 7 maart.",
     "Bestel geen 4 pizza's voor vrijdag 7 maart.", "a word added or dropped"),
    ("swedish-inte", "Boka 2 tider hos frisören den 9 juni.",
     "Boka inte 2 tider hos frisören den 9 juni.", "a word added or dropped"),
    ("korean-past-model", "지금 동네 수영장이 열려 있나요?", "동네 수영장이 열려 있었나요?",
     "past tense differs (model)"),
    ("turkish-all-model", "Mahalledeki spor salonu şu anda açık mı?",
     "Mahalledeki bütün spor salonları şu anda açık mı?", "a word added or dropped"),
]  # fmt: skip
SERVED_ROUND_6 = [
    ("future-reworded", "Will the landlord renew the lease?",
     "Is the landlord going to renew the lease?"),
]  # fmt: skip
# served up to round 7; since round 8 a language the contrast check does not read is refused
PARAPHRASE_IN_HINDI = ("क्या पास वाला डाकघर अभी खुला है?", "क्या नज़दीकी डाकघर इस समय खुला है?")


def test_words_keep_their_combining_marks() -> None:
    # a Devanagari vowel sign (category Mc/Mn) is inside its word, not a word break
    assert (
        contrast("human: राहुल को 2000 रुपये भेजो", "human: प्रिया को 2000 रुपये भेजो") == "a word replaced"
    )
    assert contrast("human: राहुल को 2000 रुपये भेजो", "human: राहुल को 2000 रुपये भेजो") is None


def test_one_word_added_is_refused_in_any_language() -> None:
    assert contrast("human: Rezervuj 2 stoly.", "human: Rezervuj všechny 2 stoly.") == (
        "a word added or dropped"
    )
    assert contrast("human: Tilaa 3 pizzaa.", "human: Älä tilaa 3 pizzaa.") == (
        "a word added or dropped"
    )
    # a word replaced is another rule's shape; two words added are not this one
    assert contrast("human: Tilaa 3 pizzaa.", "human: Tilaa 3 isoa pizzaa nyt.") != (
        "a word added or dropped"
    )


@needs_model
def test_the_model_reads_a_small_difference(embeddings: Any) -> None:
    a, b = REFUSED_ROUND_6[3][1:3]
    # no cue list knows Korean tense: without the model, only the language refuses it
    assert contrast(f"human: {a}", f"human: {b}") == "language not read (ko)"
    assert contrast(f"human: {a}", f"human: {b}", embeddings.embed_documents) == (
        "past tense differs (model)"
    )
    a, b = SERVED_ROUND_6[0][1:]
    assert contrast(f"human: {a}", f"human: {b}", embeddings.embed_documents) is None


@needs_model
def test_round_6_rules_end_to_end(pg18_dsn: str, tmp_path: Path, embeddings: Any) -> None:
    served_and_refused(pg18_dsn, tmp_path, embeddings, SERVED_ROUND_6, REFUSED_ROUND_6, "round6")


# Round 7 (issue #34): development examples (sets #3, #5, #6), each refused or served by the
# rule the fourth element names.
REFUSED_ROUND_7 = [
    ("numbers-trading-places", "Swap Nora's seat from table 4 to table 9 in the tournament plan.",
     "Swap Nora's seat from table 9 to table 4 in the tournament plan.", "numbers differ"),
    ("turkish-accounts-swapped", "Benim hesabımdan Ayşe'nin hesabına 500 lira gönder.",
     "Ayşe'nin hesabından benim hesabıma 500 lira gönder.", "same words, other order"),
    ("swedish-all-inflected", "Är biblioteket i centrum öppet nu?",
     "Är alla bibliotek i centrum öppna nu?", "a word added or dropped"),
    ("greek-all-inflected", "Είναι ανοιχτό το φαρμακείο της γειτονιάς τώρα;",
     "Είναι ανοιχτά όλα τα φαρμακεία της γειτονιάς τώρα;", "a word added or dropped"),
    ("turkish-now-dropped", "Mahalledeki spor salonu şu anda açık mı?",
     "Mahalledeki spor salonu açık mıydı?", "words added or dropped"),
]  # fmt: skip
SERVED_ROUND_7 = [
    ("number-and-date-moved", "Add 2 honey supers to hive 7 on May 14.",
     "On May 14, put two honey supers on hive 7."),
    ("date-fronted", "Print 4 copies of the bracket on September 2.",
     "On September 2, print four copies of the bracket."),
    ("sentences-swapped", "Are guppies hardier than bettas? Answer with bullet points.",
     "Answer with bullet points: are guppies hardier than bettas?"),
    ("one-as-a-pronoun", "Is a robotic cleaner better than a suction cleaner for a vinyl pool? "
     "Reply with three bullet points.", "Reply with three bullet points: for a vinyl pool, is a "
     "robotic cleaner better than a suction one?"),
]  # fmt: skip


def test_numbers_moved_with_their_words_are_the_same_numbers() -> None:
    a, b = SERVED_ROUND_7[0][1:]
    assert contrast(f"human: {a}", f"human: {b}") is None
    a, b = REFUSED_ROUND_7[0][1:3]
    assert contrast(f"human: {a}", f"human: {b}") == "numbers differ"
    # "one" on one side only is no number ("a suction one"); "one" against "two" is
    a, b = SERVED_ROUND_7[3][1:]
    assert contrast(f"human: {a}", f"human: {b}") is None
    assert contrast("human: Answer in one sentence.", "human: Answer in two sentences.") == (
        "numbers differ"
    )


def test_a_run_fronted_is_not_a_swap() -> None:
    a, b = SERVED_ROUND_7[1][1:]
    assert contrast(f"human: {a}", f"human: {b}") is None
    # two single words trading places stay refused
    assert contrast("human: Convert pounds to kilograms.", "human: Convert kilograms to pounds.")


def test_inflected_words_added_or_dropped() -> None:
    # the Swedish pair needs the model (without it, "elements replaced" refuses it first)
    for _, a, b, why in REFUSED_ROUND_7[1:2] + REFUSED_ROUND_7[3:]:
        assert contrast(f"human: {a}", f"human: {b}") == why, b


@needs_model
def test_round_7_rules_end_to_end(pg18_dsn: str, tmp_path: Path, embeddings: Any) -> None:
    served_and_refused(pg18_dsn, tmp_path, embeddings, SERVED_ROUND_7, REFUSED_ROUND_7, "round7")


# Round 8 (issue #34): a language the contrast check does not read is refused unless the words
# are the same; development examples of sets #5-#7 that were served wrongly, and paraphrases in
# languages it reads that must still be served.
REFUSED_ROUND_8 = [
    ("finnish-past", "Onko kulman apteekki nyt auki?", "Oliko kulman apteekki auki?",
     "language not read (fi)"),
    ("swahili-all", "Je, duka la dawa la kona liko wazi sasa?",
     "Je, maduka yote ya dawa ya kona yako wazi sasa?", "language not read (sw)"),
    ("ukrainian-accounts-swapped", "Переведи 1000 гривень з мого рахунку на рахунок Олени.",
     "Переведи 1000 гривень з рахунку Олени на мій рахунок.", "language not read (uk)"),
    ("hebrew-past", "האם בית המרקחת בפינה פתוח עכשיו?", "האם בית המרקחת בפינה היה פתוח?",
     "language not read (he)"),
    ("hindi-paraphrase", *PARAPHRASE_IN_HINDI, "language not read (hi)"),
]  # fmt: skip
SERVED_ROUND_8 = [
    # short requests in a language the check reads, which a language model alone would misplace
    ("short-english", "Convert 120 EUR to INR.", "What is 120 EUR worth in INR?"),
    ("russian-read", "Сколько стоят 2 билета в театр?", "Какова цена двух билетов в театр?"),
    ("portuguese-read", "Pague a conta de internet de 150 reais.",
     "Faça o pagamento da conta de internet de 150 reais."),
    # a count joined to its noun
    ("count-hyphenated", "Find two-bedroom flats near the central station.",
     "Show me 2-bedroom apartments close to the central station."),
    ("once-as-a-conjunction", "Can I plant the beans outside after May 15?",
     "Is it OK to plant beans outdoors once May 15 has passed?"),
]  # fmt: skip


# the Hindi paraphrase needs the model (without it, "elements replaced" refuses it first)
@pytest.mark.parametrize(
    ("a", "b", "why"), [c[1:] for c in REFUSED_ROUND_8[:4]], ids=[c[0] for c in REFUSED_ROUND_8[:4]]
)
def test_a_language_the_check_does_not_read_is_refused(a: str, b: str, why: str) -> None:
    assert contrast(f"human: {a}", f"human: {b}") == why
    # the same words are still the same request, in any language
    assert contrast(f"human: {a}", f"human:  {a.replace(' ', '  ')}") is None


def test_the_language_is_read_from_the_lines_that_differ() -> None:
    system = "\nsystem: You are a helpful assistant. Answer briefly."
    a, b = REFUSED_ROUND_8[0][1:3]
    # an English system prompt both share does not make a Finnish question English
    assert contrast(f"human: {a}{system}", f"human: {b}{system}") == "language not read (fi)"
    assert language.language_of("Onko kulman apteekki nyt auki?") == "fi"
    assert language.read_share("Is the corner pharmacy open now?") > language.READ_SHARE


def test_a_count_joined_to_its_noun_is_a_number() -> None:
    assert contrast("human: Find 2-bedroom flats.", "human: Find 3-bedroom flats.") == (
        "numbers differ"
    )
    assert contrast("human: Pay the forty-dollar fine.", "human: Pay the 40 dollar fine.") is None
    # "once" against "twice" still counts
    assert contrast("human: Water it once a day.", "human: Water it twice a day.") == (
        "numbers differ"
    )


@needs_model
def test_round_8_rules_end_to_end(pg18_dsn: str, tmp_path: Path, embeddings: Any) -> None:
    served_and_refused(pg18_dsn, tmp_path, embeddings, SERVED_ROUND_8, REFUSED_ROUND_8, "round8")


# Round 9 (issue #34): development examples (sets #1-#8) a paraphrase's shape refused.
def _c(a: str, b: str) -> str | None:
    return contrast(f"human: {a}", f"human: {b}")


def test_days_of_the_month_in_any_english_form_are_one_date() -> None:
    assert _c(
        "Book 2 cleanings for the kids on April 3.",
        "On the third of April, book two cleanings for the kids.",
    ) is None  # fmt: skip
    assert (
        _c("Order 10 passes for January 22.", "Order ten passes for the 22nd of January.") is None
    )
    assert _c("Send it on 21 October.", "Send it on October 21.") is None
    assert _c("Send it on the twenty-first of May.", "Send it on May 21.") is None
    # another day is another number
    assert _c("Book 2 cleanings on the 3rd of April.", "Book 2 cleanings on April 13.") == (
        "numbers differ"
    )


def test_a_perfect_and_a_simple_past_ask_whether_it_is_done() -> None:
    assert _c("Has the vet vaccinated the yearling?", "Did the vet vaccinate the yearling?") != (
        "tense differs"
    )
    # a present, a past perfect or a past with a time is still another tense
    assert _c("Is the shop open?", "Was the shop open?") == "tense differs"
    assert _c("Has the package arrived?", "Had the package arrived?") == "tense differs"
    assert _c("Has the package arrived?", "Did the package arrive yesterday?") is not None


def test_going_to_is_a_future() -> None:
    assert _c(
        "Has the lab finished Mr. Brandt's night guard?",
        "Is the lab going to finish Mr. Brandt's night guard?",
    ) == "tense differs"  # fmt: skip
    assert _c(
        "Will the landlord renew the lease?", "Is the landlord going to renew the lease?"
    ) is (None)


def test_a_frequency_written_two_ways_is_one_time() -> None:
    assert (
        _c(
            "How much is my home insurance premium in euros per month?",
            "What's my monthly home insurance premium in euros?",
        )
        is None
    )
    assert _c("Start the vacuum at 9 am.", "Start the vacuum at 9 in the morning.") != (
        "dates or times differ"
    )
    assert _c("Water the plants daily.", "Water the plants weekly.") == "dates or times differ"
    assert _c("Start the vacuum at 9 am.", "Start the vacuum at 9 pm.") == "dates or times differ"


# Round 10 (issue #34): development examples (sets #8, #9), each refused by the rule named.
REFUSED_ROUND_10 = [
    ("clause-appended-and-format-changed",
     "Is cosmic bowling more expensive than regular bowling? Keep it to one line.",
     "Is cosmic bowling more expensive than regular bowling with shoe rental? "
     "Give me the full price list.", "words appended"),
    ("perfect-against-progressive", "Has the game master reset the padlock in the Pharaoh room?",
     "Is the game master resetting the padlock in the Pharaoh room?", "tense differs"),
    ("spanish-go-future", "¿Ya ha arreglado el fontanero la caldera?",
     "¿Va a arreglar el fontanero la caldera?", "tense differs"),
    ("french-go-future", "Le garagiste a-t-il déjà changé les pneus de ma voiture ?",
     "Le garagiste va-t-il changer les pneus de ma voiture ?", "tense differs"),
    ("russian-cards-swapped", "Переведи 3000 рублей с моей карты на карту Ольги.",
     "Переведи 3000 рублей с карты Ольги на мою карту.", "same words, other order"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("a", "b", "why"), [c[1:] for c in REFUSED_ROUND_10], ids=[c[0] for c in REFUSED_ROUND_10]
)
def test_round_10_refusals(a: str, b: str, why: str) -> None:
    assert _c(a, b) == why
    assert _c(b, a) == why


def test_a_title_abbreviation_ends_no_sentence() -> None:
    # "Mr." is inside the sentence, so "done at the lab" is no words appended to a sentence
    assert _c(
        "Has the lab finished Mr. Brandt's night guard?",
        "Is Mr. Brandt's night guard done at the lab?",
    ) != "words appended"  # fmt: skip
    # an English "a" or "he" is no French or Spanish perfect
    assert _c("Has the parcel arrived?", "Did a parcel arrive?") != "tense differs"


# Round 11 (issue #34): futures and progressives of set #10 (development data).
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Is the child seat fitted in the minivan?",
         "Is the child seat going to be fitted in the minivan?"),
        ("Has the new tiger cub been named?", "Is the new tiger cub about to be named?"),
        ("Have the baby formula shelves been restocked?",
         "Are the baby formula shelves being restocked?"),
    ],
)  # fmt: skip
def test_going_to_be_about_to_be_and_being_are_tenses(a: str, b: str) -> None:
    assert _c(a, b) == "tense differs"
    assert _c(b, a) == "tense differs"
    # "going to" a place is no future
    assert _c("Is the bus going to the airport?", "Does the bus go to the airport?") != (
        "tense differs"
    )


# Round 12 (issue #34): the two ends of a move trading places, owners written as pronouns.
def test_from_and_to_trading_places_is_another_request() -> None:
    assert _c(
        "Move 100 dollars from my pro shop credit to Dan's.",
        "Move 100 dollars from Dan's pro shop credit to mine.",
    ) == "same words, other order"  # fmt: skip
    # the same two ends in the same places are no swap, whatever else is reworded
    same_ends = [
        _features(f"human: {t}").words
        for t in (
            "Move 100 dollars from my credit to Dan's.",
            "Shift from my credit to Dan's 100 dollars.",
        )
    ]
    assert not _from_to_swapped(*same_ends)
