"""TF's rule that the columns of one input layer have distinct names (they name its variable scopes)."""

from __future__ import annotations


def check_unique_names(columns: list) -> None:
    seen: dict = {}
    for column in sorted(columns, key=lambda c: c.name):
        if column.name in seen:
            raise ValueError(f"Duplicate feature column name found for columns: {seen[column.name]} and {column}. "
                             "This usually means that these columns refer to same base feature. Either one must "
                             "be discarded or a duplicated but renamed item must be inserted in features dict.")
        seen[column.name] = column
