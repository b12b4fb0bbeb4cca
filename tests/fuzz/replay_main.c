/*
 * replay_main.c - run fuzz inputs without libFuzzer.
 *
 * Each argument is a file (run once) or a directory (every regular file in
 * it, in name order).  A crash or sanitizer report is the failure; otherwise
 * the count of inputs run is printed and the exit status is 0 (unreadable
 * paths are reported on stderr, not failed: a crash is the failure).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read a whole file into a malloc'd buffer of exactly its size. */
static int
replay_file(const char *path, unsigned long *ran)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (f == NULL) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	for (;;) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			uint8_t *nb = realloc(buf, ncap);

			if (nb == NULL) {
				free(buf);
				fclose(f);
				fprintf(stderr, "replay: out of memory\n");
				return -1;
			}
			buf = nb;
			cap = ncap;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	/* exact-size copy so reads past the input are caught by ASan */
	{
		uint8_t *exact = malloc(n ? n : 1);

		if (exact == NULL) {
			free(buf);
			return -1;
		}
		if (n > 0)
			memcpy(exact, buf, n);
		free(buf);
		LLVMFuzzerTestOneInput(exact, n);
		free(exact);
	}
	(*ran)++;
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
replay_dir(const char *dir, unsigned long *ran)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	if (d == NULL) {
		fprintf(stderr, "replay: cannot open directory %s\n", dir);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			char **nn = realloc(names, ncap * sizeof(*names));

			if (nn == NULL) {
				rc = -1;
				break;
			}
			names = nn;
			cap = ncap;
		}
		names[n] = strdup(e->d_name);
		if (names[n] == NULL) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path, ran) < 0)
				rc = -1;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	unsigned long ran = 0;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: cannot stat %s\n", argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i], &ran) < 0)
				rc = 1;
		} else if (replay_file(argv[i], &ran) < 0) {
			rc = 1;
		}
	}
	printf("%lu inputs ran%s\n", ran, rc ? " (some paths unreadable)" : "");
	return 0;
}
