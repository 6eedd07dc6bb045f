"""The gradient-boosting libraries (XGBoost, LightGBM): their model dumps read into the tree
arrays, their input conventions (pandas categoricals) and their link functions."""
