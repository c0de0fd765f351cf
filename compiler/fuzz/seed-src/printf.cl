kernel void hello(global const int *a, float f) {
    size_t i = get_global_id(0);
    if (i < 2)
        printf("item %d: a=%d f=%f s=%s v=%v2hd\n", (int)i, a[i], f, "str", (short2)(1, 2));
}
