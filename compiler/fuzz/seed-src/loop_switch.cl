kernel void loop_switch(global int *out, int n, uchar mode) {
    int acc = 0;
    for (int i = 0; i < n; ++i) {
        switch ((i + mode) & 3) {
        case 0: acc += i; break;
        case 1: acc ^= i * 3; break;
        case 2: acc -= (i >> 1); break;
        default: if (acc > 1000) goto done; acc *= 2; break;
        }
    }
done:
    out[get_global_id(0)] = acc;
}
