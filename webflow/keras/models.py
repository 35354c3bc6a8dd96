"""`keras.models`: Model and Sequential."""

from webflow.keras.model import Model
from webflow.keras.sequential import Sequential

__all__ = ["Model", "Sequential"]
