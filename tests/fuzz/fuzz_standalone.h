/* The plain driver shared by the fuzz targets (built with
 * MINK_FUZZ_STANDALONE for replays and AFL++): runs each file named on the
 * command line, or stdin, through LLVMFuzzerTestOneInput. Include it after
 * that function, with FUZZ_TARGET_NAME defined. */
#ifndef MINK_FUZZ_STANDALONE_H
#define MINK_FUZZ_STANDALONE_H
#ifdef MINK_FUZZ_STANDALONE
/* A plain driver: runs each file named on the command line (or stdin). */
static int run_file(FILE *f, const char *name)
{
    size_t n = 0, cap = 1 << 16;
    uint8_t *buf = malloc(cap);
    if (!buf) return 1;
    for (;;) {
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                return 1;
            }
            buf = nb;
        }
        const size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fprintf(stderr, "%s: %s (%zu bytes)\n", FUZZ_TARGET_NAME, name, n);
    /* an exact-size copy, so ASan sees a read past the end as libFuzzer would */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    if (n) memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) return run_file(stdin, "<stdin>");
    for (int i = 1; i < argc; ++i) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        const int rc = run_file(f, argv[i]);
        fclose(f);
        if (rc) return rc;
    }
    fprintf(stderr, "%s: %d input(s) passed\n", FUZZ_TARGET_NAME, argc - 1);
    return 0;
}
#endif
#endif
