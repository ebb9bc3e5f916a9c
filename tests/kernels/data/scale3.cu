// A foreign device function for tests/kernels/externs.py, in Numba's ABI:
// the result through the first pointer, a status returned (0: no error).
extern "C" __device__
int scale3(float *out, float a)
{
    *out = 3.0f * a + 0.5f;
    return 0;
}
