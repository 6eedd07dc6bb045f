"""geco: counterfactual explanations in real time (GeCo, VLDB 2021)."""

from geco import datasets

__all__ = ["datasets"]
__version__ = "0.1.0"
