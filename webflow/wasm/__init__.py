"""Portable C kernels (native shared library and wasm32-simd128 side module) and their build; see README.md."""
