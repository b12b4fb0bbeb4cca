/* source.c - opening a run's source and dropping privileges (-Z); see
 * run.h. */
#include "run/base.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

/* Live capture was refused for want of privilege: say which and how. */
static void perm_hint(const char *iface)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		snprintf(exe, sizeof(exe), "nfscope");
	else
		exe[n] = '\0';
	fprintf(stderr, "nfscope: capturing on %s needs the CAP_NET_RAW "
		"capability (and CAP_NET_ADMIN for some interface settings), "
		"which this process (uid %u) lacks.\n"
		"nfscope: run it as root (sudo), or give the program the two "
		"capabilities once:\n"
		"nfscope:     sudo setcap cap_net_raw,cap_net_admin=eip %s\n"
		"nfscope: (or read a capture file with -r)\n", iface,
		(unsigned)geteuid(), exe);
}

struct cap_source *run_open_source(const struct run_config *o)
{
	char err[CAP_ERRBUF_SIZE] = "", warn[CAP_ERRBUF_SIZE] = "", lt[96];
	struct cap_source *s;

	if (o->nfiles && o->iface) {
		fprintf(stderr, "nfscope: give either -r FILE or -i IFACE, not both\n");
		return NULL;
	}
	if (!o->nfiles && !o->iface) {
		fprintf(stderr, "nfscope: no input: give -r FILE or -i IFACE\n");
		return NULL;
	}
	if (o->nfiles) {
		s = cap_open_files(o->files, o->nfiles, &o->cap, err);
		if (!s)
			fprintf(stderr, "nfscope: %s\n", err);	/* names the file */
		return s;
	}
	s = cap_open_live(o->iface, &o->cap, err, warn);
	if (!s) {
		bool perm = errno == EPERM;
		size_t n = strlen(o->iface);

		/* most of libpcap's messages name the interface already */
		if (strncmp(err, o->iface, n) == 0 && err[n] == ':')
			fprintf(stderr, "nfscope: %s\n", err);
		else
			fprintf(stderr, "nfscope: %s: %s\n", o->iface, err);
		if (perm)
			perm_hint(o->iface);
		return NULL;
	}
	if (warn[0])
		fprintf(stderr, "nfscope: warning: %s: %s\n", o->iface, warn);
	if (o->cap.snaplen > 0 && o->cap.snaplen < CAP_DEFAULT_SNAPLEN)
		fprintf(stderr, "nfscope: note: -s %d: on a capturing host TCP "
			"segments arrive coalesced (GRO/TSO, 64 KiB and more); "
			"an RPC record that begins past byte %d of a segment is "
			"not seen, call or reply: operation counts, READ/WRITE "
			"size shares and latencies may be low (nfscope(1), -s).  "
			"The default, -s 0, sees every one\n",
			o->cap.snaplen, o->cap.snaplen);
	/* as tcpdump says it: the capture is active from here on (scripts
	   wait for this line before they send traffic) */
	fprintf(stderr, "nfscope: listening on %s, link-type %s, snapshot "
		"length %d bytes\n", o->iface, cap_linktype_str(
		cap_source_linktype(s), lt, sizeof(lt)), cap_source_snaplen(s));
	return s;
}

static int become_user(const char *user);

/* The process's capability sets (capget(2), no libcap): false if the
 * kernel would not say. */
static bool caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };

	memset(d, 0, 2 * sizeof(d[0]));
	return syscall(SYS_capget, &h, d) == 0;
}

static bool cap_effective(const struct __user_cap_data_struct d[2], int cap)
{
	return (d[cap / 32].effective >> (cap % 32)) & 1u;
}

/*
 * The capture is open: a process that is not root (a binary given
 * cap_net_raw,cap_net_admin by setcap, run by an ordinary user) needs no
 * capability any more and gives up every one (effective, permitted,
 * inheritable, ambient), as Wireshark's dumpcap does, so nothing the run
 * does later (decoding hostile packets, writing files) has them.  Then a
 * check that none is left.
 */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];

	if (!caps_get(d))
		return 0;		/* no capabilities on this kernel */
	if (!(d[0].permitted | d[1].permitted | d[0].inheritable |
	      d[1].inheritable))
		goto ambient;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) != 0) {
		fprintf(stderr, "nfscope: cannot drop capabilities: %s\n",
			strerror(errno));
		return -1;
	}
ambient:
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (caps_get(d) && (d[0].permitted | d[1].permitted | d[0].effective |
			    d[1].effective)) {
		fprintf(stderr, "nfscope: capabilities still held after "
			"dropping them; stopping\n");
		return -1;
	}
	return 0;
}

/*
 * -Z: tcpdump's order (initgroups, setgid, setuid), each checked, then a
 * check that root cannot be regained.  The capture socket stays open; what
 * the run creates later (record's database) belongs to the user.  A
 * process not root (with or without -Z) then drops every capability.
 */
int run_drop_privileges(const char *user)
{
	if (become_user(user) < 0)
		return -1;
	return geteuid() != 0 ? drop_caps() : 0;
}

static int become_user(const char *user)
{
	struct __user_cap_data_struct d[2];
	struct passwd *pw;

	if (user == NULL)
		return 0;
	errno = 0;
	pw = getpwnam(user);
	if (pw == NULL) {
		fprintf(stderr, "nfscope: -Z %s: %s\n", user,
			errno ? strerror(errno) : "no such user");
		return -1;
	}
	if (geteuid() == pw->pw_uid && getuid() == pw->pw_uid)
		return 0;	/* already that user: nothing to drop */
	/* root, or a process given CAP_SETUID and CAP_SETGID */
	if (geteuid() != 0 && !(caps_get(d) && cap_effective(d, CAP_SETUID) &&
				cap_effective(d, CAP_SETGID))) {
		fprintf(stderr, "nfscope: -Z %s: changing user needs root or "
			"the CAP_SETUID and CAP_SETGID capabilities (this "
			"process runs as uid %u; without -Z it drops every "
			"capability once the capture is open)\n", user,
			(unsigned)geteuid());
		return -1;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 ||
	    setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
		fprintf(stderr, "nfscope: -Z %s: cannot become uid %u gid %u: "
			"%s\n", user, (unsigned)pw->pw_uid,
			(unsigned)pw->pw_gid, strerror(errno));
		return -1;
	}
	if (pw->pw_uid != 0 && setuid(0) == 0) {
		fprintf(stderr, "nfscope: -Z %s: root privileges could be "
			"regained; stopping\n", user);
		return -1;
	}
	return 0;
}

