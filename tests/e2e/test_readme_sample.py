"""The README's sample output is what the command prints today (times aside)."""

import readme_sample


def test_readme_sample_matches_a_real_run():
    assert readme_sample.masked(readme_sample.run()) == readme_sample.masked(readme_sample.readme_block())
