"""The three data sets of the GeCo paper, shipped gzipped inside the package and loaded offline.

Sources and licences:

* Adult: UCI Machine Learning Repository, "Adult" (Becker & Kohavi, 1996), 1994 US census
  extract; CC BY 4.0. Files ``adult.data`` / ``adult.test`` as published, with string categories.
* Credit: UCI "default of credit card clients" (Yeh & Lien, 2009), CC BY 4.0, in the
  preprocessing of MACE (Karimi et al., 2020) that the GeCo paper used.
* COMPAS: ProPublica's COMPAS recidivism analysis (Angwin et al., 2016; data published by
  ProPublica on GitHub), in MACE's preprocessing.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["DATASETS", "Dataset", "load_adult", "load_compas", "load_credit", "load_dataset"]


@dataclass
class Dataset:
    """A bundled data set: features ``X`` (real dtypes), labels ``y`` (0/1 ints), the favourable
    label ``desired_class``, a ``description`` and the path of its example ``.plaf`` program."""

    name: str
    X: pd.DataFrame
    y: pd.Series
    desired_class: int
    description: str
    constraints: Path
    target: str = field(default="")

    def __repr__(self) -> str:
        return (
            f"Dataset({self.name!r}, rows={len(self.X)}, features={self.X.shape[1]}, "
            f"desired_class={self.desired_class}, positive_rate={self.y.mean():.3f})"
        )

    def summary(self) -> str:
        """A few lines a person can read: what the data is and what each column holds."""
        lines = [repr(self), self.description.strip(), "", "columns:"]
        for c in self.X.columns:
            s = self.X[c]
            if isinstance(s.dtype, pd.CategoricalDtype):
                kind = "ordinal" if s.dtype.ordered else "categorical"
                lines.append(f"  {c:<40} {kind}, {len(s.dtype.categories)} values")
            else:
                lines.append(f"  {c:<40} numeric, {s.min()} .. {s.max()}")
        return "\n".join(lines)


def _data_file(name: str) -> Path:
    return Path(str(resources.files("geco") / "data" / name))


# ---------------------------------------------------------------------------------- Adult
_ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
    "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week",
    "native_country", "income",
]  # fmt: skip

# Category order as listed in UCI's adult.names.
_ADULT_CATEGORIES = {
    "workclass": ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"],
    "marital_status": ["Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
                       "Married-spouse-absent", "Married-AF-spouse"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"],
    "relationship": ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative",
                     "Unmarried"],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native_country": ["United-States", "Cambodia", "England", "Puerto-Rico", "Canada",
                       "Germany", "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece",
                       "South", "China", "Cuba", "Iran", "Honduras", "Philippines", "Italy",
                       "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal", "Ireland", "France",
                       "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia",
                       "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia",
                       "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"],
}  # fmt: skip


def _read_adult_file(name: str, skip_first: bool) -> pd.DataFrame:
    with gzip.open(_data_file(name), "rt") as fh:
        df = pd.read_csv(
            fh,
            header=None,
            names=_ADULT_COLUMNS,
            skipinitialspace=True,
            na_values=["?"],
            skiprows=1 if skip_first else 0,
            dtype={c: "object" for c in _ADULT_CATEGORIES} | {"education": "object", "income": "object"},
        )
    return df.dropna(how="all")


def load_adult(include_test: bool = False) -> Dataset:
    """UCI Adult with string categories; predict whether income exceeds 50K.

    * ``y = 1`` means income ``>50K`` (the favourable outcome; ``desired_class = 1``).
    * Rows with a missing value (``?`` in the raw file; workclass, occupation, native_country)
      are dropped: 30,162 of the 32,561 rows of ``adult.data`` remain.
    * ``fnlwgt`` (the census sampling weight, not a property of a person) is dropped.
    * ``education`` is an ordered categorical, ordered by ``education_num``; the other string
      columns are unordered categoricals in the order UCI's ``adult.names`` lists them.
    * ``include_test=True`` appends the 15,060 complete rows of ``adult.test``.
    """
    frames = [_read_adult_file("adult.data.gz", skip_first=False)]
    if include_test:
        frames.append(_read_adult_file("adult.test.gz", skip_first=True))
    df = pd.concat(frames, ignore_index=True).dropna().reset_index(drop=True)
    income = df.pop("income").str.rstrip(".")
    y = pd.Series((income == ">50K").astype(np.int64).to_numpy(), name="income")
    df = df.drop(columns=["fnlwgt"])
    edu_order = (
        df[["education", "education_num"]].drop_duplicates().sort_values("education_num")["education"]
    )
    df["education"] = pd.Categorical(df["education"], categories=list(edu_order), ordered=True)
    for c, cats in _ADULT_CATEGORIES.items():
        df[c] = pd.Categorical(df[c], categories=cats)
    for c in ("age", "education_num", "capital_gain", "capital_loss", "hours_per_week"):
        df[c] = df[c].astype(np.int64)
    return Dataset(
        name="adult",
        X=df,
        y=y,
        desired_class=1,
        description=(
            "UCI Adult (1994 US census extract; Becker & Kohavi 1996), CC BY 4.0. Target: income "
            ">50K (y=1, favourable) vs <=50K (y=0). Rows with missing values dropped; fnlwgt "
            "dropped."
        ),
        constraints=_data_file("adult.plaf"),
        target="income",
    )


# ---------------------------------------------------------------------------------- Credit
def load_credit() -> Dataset:
    """UCI "default of credit card clients" in MACE's preprocessing (29,623 rows, 14 features).

    ``y = 1`` means no default next month (favourable; ``desired_class = 1``). All features are
    numeric integers: isMale, isMarried, HasHistoryOfOverduePayments are 0/1; AgeGroup 1-4 and
    EducationLevel 1-4 are ordinal codes kept as numbers (the GeCo paper treats them as numbers).
    """
    with gzip.open(_data_file("credit.csv.gz"), "rt") as fh:
        df = pd.read_csv(fh)
    y = pd.Series(df.pop("NoDefaultNextMonth").astype(np.int64).to_numpy(), name="NoDefaultNextMonth")
    df = df.astype(np.int64)
    return Dataset(
        name="credit",
        X=df,
        y=y,
        desired_class=1,
        description=(
            "UCI 'default of credit card clients' (Yeh & Lien 2009), CC BY 4.0, MACE "
            "preprocessing. Target: NoDefaultNextMonth (y=1 no default, favourable)."
        ),
        constraints=_data_file("credit.plaf"),
        target="NoDefaultNextMonth",
    )


# ---------------------------------------------------------------------------------- COMPAS
def load_compas() -> Dataset:
    """ProPublica COMPAS (two-year recidivism), MACE's preprocessing (5,278 rows, 5 features).

    ``y = 1`` means the person reoffended within two years; the favourable outcome is no
    recidivism, so ``desired_class = 0``. Features are integer codes as MACE encodes them:
    AgeGroup 1-3, Race 1-2, Sex 1-2, PriorsCount 0-38, ChargeDegree 1-2.
    """
    with gzip.open(_data_file("compas.csv.gz"), "rt") as fh:
        df = pd.read_csv(fh, index_col=0)
    y = pd.Series(df.pop("TwoYearRecid").astype(np.int64).to_numpy(), name="TwoYearRecid")
    df = df.astype(np.int64).reset_index(drop=True)
    return Dataset(
        name="compas",
        X=df,
        y=y,
        desired_class=0,
        description=(
            "ProPublica COMPAS recidivism analysis (Angwin et al. 2016), MACE preprocessing. "
            "Target: TwoYearRecid (y=1 reoffended; favourable is y=0)."
        ),
        constraints=_data_file("compas.plaf"),
        target="TwoYearRecid",
    )


DATASETS = {"adult": load_adult, "credit": load_credit, "compas": load_compas}


def load_dataset(name: str) -> Dataset:
    """Load a bundled data set by name (adult, credit, compas)."""
    try:
        return DATASETS[name]()
    except KeyError:
        raise ValueError(f"unknown data set {name!r}; choose one of {sorted(DATASETS)}") from None
