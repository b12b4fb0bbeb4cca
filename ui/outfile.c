/* outfile.c - outputs checked against the inputs, written beside their
 * path and renamed into place; see outfile.h. */
#include "ui/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What names a file: an existing one's device and inode (symlinks
 * followed), else its directory's and its last name. */
struct ident {
	dev_t dev;
	ino_t ino;
	const char *base;	/* NULL: an existing file */
};

/* path's directory into dir ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t n)
{
	const char *slash = strrchr(path, '/');
	size_t k = slash ? (size_t)(slash - path) : 0;

	if (slash == NULL)
		snprintf(dir, n, ".");
	else if (k == 0)
		snprintf(dir, n, "/");
	else
		snprintf(dir, n, "%.*s", (int)k, path);
}

static bool ident(const char *path, struct ident *id)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	id->base = NULL;
	if (stat(path, &st) < 0) {
		dir_of(path, dir, sizeof(dir));
		if (stat(dir, &st) < 0)
			return false;
		id->base = slash ? slash + 1 : path;
	}
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return true;
}

static bool same(const struct ident *a, const char *path)
{
	struct ident b;

	if (path == NULL || strcmp(path, "-") == 0 || !ident(path, &b))
		return false;
	if (a->dev != b.dev || a->ino != b.ino)
		return false;
	return (a->base == NULL) == (b.base == NULL) &&
	       (a->base == NULL || strcmp(a->base, b.base) == 0);
}

/* Is path an existing file that is not a regular one (a FIFO, a device:
 * /dev/null, /dev/stdout), written where it is, never replaced? */
static bool special(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	       !S_ISDIR(st.st_mode);
}

/* path may be written: not a directory, in a directory we can write. */
static int writable(const char *who, const char *opt, const char *path)
{
	char dir[PATH_MAX];
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "nfscope %s: %s %s: is a directory\n", who,
			opt, path);
		return -1;
	}
	if (special(path))
		return 0;
	dir_of(path, dir, sizeof(dir));
	if (access(dir, W_OK | X_OK) < 0) {
		fprintf(stderr, "nfscope %s: %s %s: cannot create a file in "
			"%s: %s\n",
			who, opt, path, dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int check_one(const char *who, const struct ui_out_name *out,
		     const struct ui_out_name *outs, size_t nout,
		     const char *const *ins, size_t nin)
{
	struct ident id;
	size_t i;

	if (!ident(out->path, &id))
		return writable(who, out->opt, out->path);
	for (i = 0; i < nin; i++)
		if (same(&id, ins[i])) {
			fprintf(stderr, "nfscope %s: %s %s: the same file as "
				"the input %s: refused (it would be "
				"overwritten)\n", who, out->opt, out->path,
				ins[i]);
			return -1;
		}
	for (i = 0; i < nout; i++)
		if (&outs[i] != out && same(&id, outs[i].path)) {
			fprintf(stderr, "nfscope %s: %s %s: the same file as "
				"%s %s: refused\n", who, out->opt, out->path,
				outs[i].opt, outs[i].path);
			return -1;
		}
	return writable(who, out->opt, out->path);
}

int ui_out_check(const char *who, const struct ui_out_name *outs,
		 size_t nout, const char *const *ins, size_t nin)
{
	size_t i;

	for (i = 0; i < nout; i++)
		if (outs[i].path && strcmp(outs[i].path, "-") != 0 &&
		    check_one(who, &outs[i], outs, nout, ins, nin) < 0)
			return -1;
	return 0;
}

int ui_out_begin(struct ui_out *o, const char *who, const char *opt,
		 const char *path)
{
	unsigned k;
	int fd = -1, n;

	memset(o, 0, sizeof(*o));
	o->who = who;
	o->opt = opt;
	o->path = path;
	if (path == NULL)
		return 0;
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	if (special(path)) {	/* written where it is: tmp stays "" */
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0 && (o->f = fdopen(fd, "w")) == NULL)
			(void)close(fd);
		if (o->f == NULL) {
			fprintf(stderr, "nfscope %s: %s %s: %s\n", who, opt,
				path, strerror(errno));
			return -1;
		}
		return 0;
	}
	for (k = 0; fd < 0 && k < 100; k++) {
		n = snprintf(o->tmp, sizeof(o->tmp), "%s.%ld-%u.tmp", path,
			     (long)getpid(), k);
		if (n < 0 || (size_t)n >= sizeof(o->tmp)) {
			errno = ENAMETOOLONG;
			break;
		}
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd >= 0 && (o->f = fdopen(fd, "w")) == NULL) {
		(void)close(fd);
		(void)unlink(o->tmp);
	}
	if (o->f == NULL) {
		fprintf(stderr, "nfscope %s: %s %s: cannot create %s: %s\n",
			who, opt, path, fd >= 0 || errno == ENAMETOOLONG ?
			"its temporary file" : o->tmp, strerror(errno));
		o->tmp[0] = '\0';
		return -1;
	}
	return 0;
}

int ui_out_end(struct ui_out *o, bool ok)
{
	int err = 0;

	if (o->f == NULL || o->f == stdout) {
		o->f = NULL;
		return 0;
	}
	if (ok && (fflush(o->f) != 0 || ferror(o->f)))
		err = errno ? errno : EIO;
	if (fclose(o->f) != 0 && ok && !err)
		err = errno;
	o->f = NULL;
	if (ok && !err && o->tmp[0] && rename(o->tmp, o->path) < 0)
		err = errno;
	if (ok && !err)
		return 0;
	if (!o->tmp[0]) {	/* a FIFO, a device: nothing to remove */
		fprintf(stderr, "nfscope %s: %s %s: not written%s%s\n",
			o->who, o->opt, o->path, err ? ": " : "",
			err ? strerror(err) : "");
		return -1;
	}
	(void)unlink(o->tmp);
	fprintf(stderr, "nfscope %s: %s %s: not written%s%s%s: nothing was "
		"left there\n", o->who, o->opt, o->path, err ? " (" : "",
		err ? strerror(err) : "", err ? ")" : "");
	return -1;
}
