typedef struct { int a; float b[3]; char c; } S;
int helper(private int *p, int n) { int s = 0; for (int i = 0; i < n; ++i) s += p[i]; return s; }
kernel void structs(global S *s, S byval, global long *out) {
    int priv[16];
    size_t i = get_global_id(0);
    for (int k = 0; k < 16; ++k) priv[k] = k * (int)i;
    S t = s[i];
    t.a += byval.a + helper(priv, (int)(i & 15));
    t.b[i % 3] = byval.b[1] * (float)t.c;
    s[i] = t;
    out[i] = (long)t.a * (long)get_global_size(0) + select(1, 2, t.c > 3) + (long)mul_hi((ulong)i, 7ul);
    vstore4(vload4(0, (global int*)&s[i]), 0, (global int*)out);
}
