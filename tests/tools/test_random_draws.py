"""tools/random_draws.py: the random schedule's draws reproduced from the generator's raw words,
the generator left exactly where the sequential draws leave it, and a check that notices when
numpy draws otherwise."""

import numpy as np

from tools import random_draws


def test_draws_from_raw_words_are_numpys_for_many_states_and_ranges():
    assert random_draws.matches_numpy(seeds=200, draws=60)


def test_after_bulk_draws_the_next_launch_draws_what_the_sequential_generator_draws():
    ranges = [5, 2048, 2 ** 31 + 7, 3, 2 ** 32 - 5, 64, 9]
    sequential = np.random.default_rng(11)
    expected = [int(sequential.integers(0, n)) for n in ranges]
    bulk = np.random.default_rng(11)
    stream, state = random_draws.words(bulk.bit_generator, 200)
    at, got = 0, []
    for n in ranges:
        value, at = random_draws.bounded(stream, n, at)
        got.append(value)
    random_draws.advance_past(bulk.bit_generator, state, at)
    assert got == expected
    assert bulk.bit_generator.state == sequential.bit_generator.state
    assert [int(bulk.integers(0, 777)) for _ in range(5)] == [int(sequential.integers(0, 777)) for _ in range(5)]


def test_a_draw_that_took_one_raw_value_per_call_is_caught_by_the_check(monkeypatch):
    # the reading in which each integers() call takes a fresh 64-bit value (not numpy's) must fail
    def one_raw_per_draw(bit_generator, count):
        state = bit_generator.state
        return [raw & random_draws.WORD for raw in bit_generator.random_raw(count).tolist()], state
    monkeypatch.setattr(random_draws, "words", one_raw_per_draw)
    assert not random_draws.matches_numpy(seeds=4, draws=10)
