"""Compatibility facades: `webflow.compat.v1` is the TF1 API (`import webflow.compat.v1 as tf`)."""
