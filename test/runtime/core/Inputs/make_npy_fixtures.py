#!/usr/bin/env python3
"""Writes the .npy fixtures of core_npy_test.cpp with NumPy (run by hand on a
machine that has NumPy: `python3 make_npy_fixtures.py` in this folder). The
files were made with NumPy 2.5.2; their values are repeated in the test."""
import numpy as np

arange = np.arange(6, dtype="<f4").reshape(2, 3)
np.save("np_f32_2x3.npy", arange * 1.5)
np.save("np_f16_4.npy", np.array([1, -2, 0.5, 65504], "<f2"))
np.save("np_f64_0x3.npy", np.zeros((0, 3), "<f8"))
np.save("np_i64_scalar.npy", np.array(-7, "<i8"))
np.save("np_i32_3.npy", np.array([1, -2, 2**31 - 1], "<i4"))
np.save("np_i16_3.npy", np.array([1, -2, 300], "<i2"))
np.save("np_i8_3.npy", np.array([1, -2, 127], "i1"))
np.save("np_u8_3.npy", np.array([1, 2, 255], "u1"))
np.save("np_bool_2x2.npy", np.array([[True, False], [False, True]]))
for major in (2, 3):
    with open(f"np_v{major}_f32_2x3.npy", "wb") as f:
        np.lib.format.write_array(f, arange, version=(major, 0))
np.save("np_fortran_2x3.npy", np.asfortranarray(arange))
np.save("np_big_endian_3.npy", np.array([1, 2, 3], ">f4"))
