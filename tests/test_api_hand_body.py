"""A hand POST's body checked on its plain path (serializers.plain_hand_record) is taken exactly as the
serializer takes it: the same facts for a body it accepts; any other body goes to the serializer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.api.serializers import HandRecordSerializer, plain_hand_record
from scoring.models import Ending
from tests.fuzzing import examples

# Values a phone or a script sends, and the near misses the serializer converts or refuses.
ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 120),
    st.integers(),
    st.floats(allow_nan=False),
    st.sampled_from([5.0, 1e3, "5", " 7 ", "5.0", "", "  ", "7S", " 10h ", "10HH", "7s\x00", "Ä", "\u00a07S"]),
    st.text(max_size=6),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
PLAIN = {
    "ending": st.sampled_from(Ending.values),
    "by": st.one_of(st.none(), st.integers(0, 99)),
    "knocker_deadwood": st.one_of(st.none(), st.integers(0, 99)),
    "defender_deadwood": st.one_of(st.none(), st.integers(0, 99)),
    "upcard": st.sampled_from([None, "", "   ", "7S", " 10h ", "qd"]),
    "cards": st.none(),
    "number": st.integers(1, 99),
    "board": st.one_of(st.none(), st.integers(0, 3)),
    "other": ANY_VALUE,
}


@st.composite
def bodies(draw):
    """A body of plain values, but for at most one field, which may hold anything."""
    names = ["ending", *draw(st.lists(st.sampled_from(sorted(set(PLAIN) - {"ending"})), unique=True))]
    odd = draw(st.one_of(st.none(), st.sampled_from(names)))
    return {name: draw(ANY_VALUE if name == odd else PLAIN[name]) for name in names}


def serializer_facts(body) -> dict | None:
    serializer = HandRecordSerializer(data=body)
    return dict(serializer.validated_data) if serializer.is_valid() else None


@settings(max_examples=examples(quick=400, deep=20000), deadline=None)
@given(st.one_of(bodies(), ANY_VALUE))
def test_a_body_on_the_plain_path_is_taken_as_the_serializer_takes_it(body):
    plain = plain_hand_record(body)
    if plain is not None:
        assert plain == serializer_facts(body)


@pytest.mark.parametrize(
    "body",
    [
        {"ending": "knock", "by": 3, "knocker_deadwood": 5, "defender_deadwood": 9, "number": 4},
        {"ending": "dead", "number": 1, "upcard": "7s "},  # trimmed; four characters sent are over the schema's 3
        {"ending": "gin", "by": 2, "defender_deadwood": 0, "upcard": None, "cards": None, "board": None},
        {"ending": "big_gin", "by": 2, "defender_deadwood": 12, "board": 2, "number": 7, "client": "phone"},
    ],
)
def test_the_usual_bodies_take_the_plain_path(body):
    assert plain_hand_record(body) is not None
    assert plain_hand_record(body) == serializer_facts(body)
