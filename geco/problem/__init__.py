"""One instance's problem: the input checks, the distance, the feasible spaces per group and the
diagnosis of why a program leaves nothing to search. Imports nothing of the search."""
