/*
 * tapfwd.c - the lab's impaired link: two TAP devices, one in each network
 * namespace, and a forwarder between them that delays, jitters and drops
 * frames with a seeded generator.
 *
 *   tapfwd --ns-a PATH --dev-a NAME --ns-b PATH --dev-b NAME
 *          [--seed N] [--ab SPEC] [--ba SPEC] --log FILE
 *   SPEC = comma-separated delay=MS,jitter=MS,loss=P,fragloss=P,rpcdelay=MS,
 *          ackdelay=MS,reset=N,resets=M
 *
 * Direction "ab" is a -> b (the lab puts the client on a: client to server),
 * "ba" the other way.  Each frame of a direction is delayed by
 * delay +- jitter (uniform, in microseconds; frames may overtake each other
 * as with netem's jitter, so every frame's own delay stays within the
 * bounds), and dropped with probability `loss`; `fragloss` drops only IPv4
 * fragments (MF set or offset > 0).  Only IPv4 frames are ever dropped: an
 * ARP loss would only stall a run for a second and prove nothing.
 *
 * `rpcdelay` emulates a server that takes MS to answer, not a long link:
 * only frames carrying payload (TCP segments with data, UDP datagrams and
 * their fragments) are delayed by MS; frames without payload (SYN/ACK,
 * pure ACKs, FIN) are not, so a TCP handshake still shows the link's own
 * round trip.  The direction keeps its order: no frame leaves before the
 * one ahead of it (a pure ACK queued behind a delayed reply waits for it).
 *
 * `ackdelay` holds pure TCP ACKs (no payload, no SYN/FIN/RST) MS and lets
 * every other frame pass: a peer whose ACKs come late, as a delayed ACK
 * does.  Frames with payload overtake the held ACKs (they carry the same
 * acknowledgement themselves).
 *
 * `reset=N` forces connection resets: every Nth TCP frame of the direction
 * with 1000 bytes of payload or more (a bulk transfer, not a small reply:
 * libnfs 4.0 loops after a reset inside a large reply, LAB-NOTES) is
 * dropped (logged, why "reset") and replaced by two forged RSTs, one to
 * each end, each at the sequence number that end expects next; `resets=M`
 * stops after M (default 1).  Use it on a direction without loss or jitter,
 * so that the receiver has every byte before the dropped one.
 *
 * Every dropped frame is one JSON line in the log (the lab's ground truth
 * for retransmissions): wall-clock time, direction, length, the IPv4, UDP
 * or TCP header fields and, when the frame carries the start of an RPC
 * message, its xid.  Non-first fragments carry no UDP header: their xid is
 * taken from the first fragment of the same datagram, remembered by
 * (source, destination, IP id).  SIGTERM/SIGINT end the run with a last
 * "summary" line; frames still queued then are logged as dropped too.
 *
 * The process stays single-threaded; two generators (one per direction)
 * make a direction's drops independent of the other's traffic.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define FRAME_MAX	2048	/* TAP without offloads: MTU 1500 + 14 */
#define QUEUE_MAX	8192	/* frames in flight per direction */
#define FRAGMAP_MAX	1024	/* datagrams whose first fragment we saw */

static volatile sig_atomic_t stop;

struct impair {
	double delay_us, jitter_us;
	double loss, fragloss;
	double rpcdelay_us;	/* payload frames only, order kept */
	double ackdelay_us;	/* pure ACKs only */
	uint64_t reset_every;	/* 0: none; else every Nth bulk TCP frame */
	uint64_t resets_max;
};

struct slot {
	int64_t due_us;		/* monotonic deadline */
	uint16_t len;
	uint8_t data[FRAME_MAX];
};

/* One direction: its generator, impairment and queue of delayed frames. */
struct dir {
	const char *name;
	int in, out;		/* read from in, write to out */
	struct impair imp;
	uint64_t rng;
	struct slot *q;		/* QUEUE_MAX slots, owned */
	int nq;			/* used slots: q[0..nq) in no order */
	uint64_t frames, dropped, fwd, write_err;
	int64_t max_late_us;	/* worst wake-up after a frame's due time */
	int64_t last_due_us;	/* rpcdelay: the latest frame's deadline */
	struct dir *back;	/* the other direction (forged RSTs to the sender) */
	uint64_t bulk, resets;	/* bulk TCP frames seen, resets forged */
};

/* first fragment's RPC facts, for the fragments that follow it */
struct fragkey {
	uint32_t src, dst;
	uint16_t id;
	bool used, rpc;
	uint32_t xid, mtype;
};

static struct fragkey fragmap[FRAGMAP_MAX];
static FILE *droplog;

/* splitmix64: tiny, well mixed, and the same everywhere for a seed */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)	/* [0, 1) */
{
	return (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---------------------------------------------------------- decoding -- */

/* What the drop log says about a frame (and what the fragment map needs). */
struct facts {
	bool ip, frag, first_frag;
	uint32_t src, dst;
	uint16_t id, off;	/* off in bytes */
	bool mf;
	uint8_t proto;
	bool l4;		/* UDP/TCP header present */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t tflags;
	uint32_t plen;		/* L4 payload bytes in this frame */
	bool rpc;
	uint32_t xid, mtype;
};

/*
 * An RPC message starts here if the message type is CALL (0) with RPC
 * version 2, or REPLY (1) with reply_stat 0/1: enough for a drop log, which
 * only has to name the xid; nfscope's stricter probe is not reused.
 */
static bool rpc_start(const uint8_t *p, uint32_t n, uint32_t *xid, uint32_t *mtype)
{
	if (n < 12)
		return false;
	*xid = get32(p);
	*mtype = get32(p + 4);
	if (*mtype == 0)
		return n >= 16 && get32(p + 8) == 2;
	return *mtype == 1 && get32(p + 8) <= 1;
}

static struct fragkey *frag_slot(uint32_t src, uint32_t dst, uint16_t id)
{
	return &fragmap[(src ^ dst ^ id ^ (id << 7)) % FRAGMAP_MAX];
}

static void decode_l4(const uint8_t *p, uint32_t n, struct facts *f)
{
	uint32_t hl;

	if (f->proto == 17 && n >= 8) {
		f->l4 = true;
		f->sport = get16(p);
		f->dport = get16(p + 2);
		f->plen = n - 8;
		f->rpc = rpc_start(p + 8, n - 8, &f->xid, &f->mtype);
	} else if (f->proto == 6 && n >= 20 && (hl = (uint32_t)(p[12] >> 4) * 4) >= 20 &&
		   hl <= n) {
		f->l4 = true;
		f->sport = get16(p);
		f->dport = get16(p + 2);
		f->seq = get32(p + 4);
		f->ack = get32(p + 8);
		f->tflags = p[13];
		f->plen = n - hl;
		/* a record mark then the message: a guess at record starts */
		if (f->plen >= 16 && (get32(p + hl) & 0x80000000u))
			f->rpc = rpc_start(p + hl + 4, f->plen - 4, &f->xid, &f->mtype);
	}
}

static void decode(const uint8_t *fr, uint32_t len, struct facts *f)
{
	const uint8_t *ip = fr + 14;
	uint32_t ihl, tot;
	struct fragkey *k;

	memset(f, 0, sizeof(*f));
	if (len < 34 || get16(fr + 12) != 0x0800 || (ip[0] >> 4) != 4)
		return;
	ihl = (uint32_t)(ip[0] & 15) * 4;
	tot = get16(ip + 2);
	if (ihl < 20 || tot < ihl || tot > len - 14)
		return;
	f->ip = true;
	f->id = get16(ip + 4);
	f->mf = ip[6] & 0x20;
	f->off = (uint16_t)((get16(ip + 6) & 0x1fff) * 8);
	f->frag = f->mf || f->off;
	f->first_frag = f->frag && !f->off;
	f->proto = ip[9];
	f->src = get32(ip + 12);
	f->dst = get32(ip + 16);
	if (!f->off)
		decode_l4(ip + ihl, tot - ihl, f);
	if (!f->frag)
		return;
	k = frag_slot(f->src, f->dst, f->id);
	if (f->first_frag) {
		*k = (struct fragkey){ f->src, f->dst, f->id, true, f->rpc, f->xid, f->mtype };
	} else if (k->used && k->src == f->src && k->dst == f->dst && k->id == f->id) {
		f->rpc = k->rpc;
		f->xid = k->xid;
		f->mtype = k->mtype;
	}
}

/* ------------------------------------------------------------- log -- */

static void put_ip(const char *key, uint32_t a)
{
	fprintf(droplog, ",\"%s\":\"%u.%u.%u.%u\"", key, a >> 24, (a >> 16) & 255,
		(a >> 8) & 255, a & 255);
}

static void log_drop(const struct dir *d, const struct facts *fp, uint32_t len, const char *why)
{
	struct facts f = *fp;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(droplog, "{\"t\":%lld.%06ld,\"dir\":\"%s\",\"why\":\"%s\",\"len\":%u",
		(long long)ts.tv_sec, ts.tv_nsec / 1000, d->name, why, len);
	if (f.ip) {
		put_ip("src", f.src);
		put_ip("dst", f.dst);
		fprintf(droplog, ",\"ipid\":%u,\"proto\":%u,\"frag\":%s,\"frag_off\":%u,\"mf\":%s",
			f.id, f.proto, f.frag ? "true" : "false", f.off, f.mf ? "true" : "false");
	}
	if (f.l4)
		fprintf(droplog, ",\"sport\":%u,\"dport\":%u,\"payload\":%u", f.sport, f.dport, f.plen);
	if (f.l4 && f.proto == 6)
		fprintf(droplog, ",\"seq\":%" PRIu32 ",\"ack\":%" PRIu32 ",\"tcp_flags\":%u",
			f.seq, f.ack, f.tflags);
	if (f.rpc)
		fprintf(droplog, ",\"xid\":\"0x%08" PRIx32 "\",\"rpc\":\"%s\"", f.xid,
			f.mtype ? "reply" : "call");
	fputs("}\n", droplog);
	fflush(droplog);
}

/* --------------------------------------------------------- forwarding -- */

static bool is_ipv4(const uint8_t *fr, uint32_t len)
{
	return len >= 34 && get16(fr + 12) == 0x0800;
}

static bool is_fragment(const uint8_t *fr, uint32_t len)
{
	return is_ipv4(fr, len) && (get16(fr + 20) & 0x3fff);
}

/* Decide a frame's fate: both draws are made for every frame, so a
 * direction's sequence of decisions depends only on its seed and frame
 * count, not on which frames happened to be fragments. */
static bool drop_it(struct dir *d, const uint8_t *fr, uint32_t len, const char **why)
{
	double u = rng_unit(&d->rng), v = rng_unit(&d->rng);

	if (!is_ipv4(fr, len))
		return false;
	if (u < d->imp.loss) {
		*why = "loss";
		return true;
	}
	if (v < d->imp.fragloss && is_fragment(fr, len)) {
		*why = "fragloss";
		return true;
	}
	return false;
}

static void send_frame(struct dir *d, const uint8_t *fr, uint32_t len)
{
	if (write(d->out, fr, len) != (ssize_t)len)
		d->write_err++;	/* the peer's queue was full: a real loss, logged */
	else
		d->fwd++;
}

/* ------------------------------------------------------- forged resets -- */

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		sum += get16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * A 54-byte RST|ACK from (src, sport) to (dst, dport) at seq, with the
 * Ethernet addresses given: IPv4 and TCP checksums computed (the lab's
 * links have checksum offload off, so the receiver checks them).
 */
static void rst_frame(uint8_t *fr, const uint8_t *dmac, const uint8_t *smac, uint32_t src,
		      uint32_t dst, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack)
{
	uint8_t *ip = fr + 14, *t = fr + 34, pseudo[12];

	memset(fr, 0, 54);
	memcpy(fr, dmac, 6);
	memcpy(fr + 6, smac, 6);
	put16(fr + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, 40);
	ip[6] = 0x40;		/* DF */
	ip[8] = 64;
	ip[9] = 6;
	put32(ip + 12, src);
	put32(ip + 16, dst);
	put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	put16(t, sport);
	put16(t + 2, dport);
	put32(t + 4, seq);
	put32(t + 8, ack);
	t[12] = 5 << 4;
	t[13] = 0x14;		/* RST, ACK */
	put32(pseudo, src);
	put32(pseudo + 4, dst);
	put16(pseudo + 8, 6);
	put16(pseudo + 10, 20);
	put16(t + 16, csum_fold(csum_add(csum_add(0, pseudo, 12), t, 20)));
}

/* reset=N: is this the Nth bulk TCP frame (and resets are left)? */
static bool reset_due(struct dir *d, const struct facts *f)
{
	if (!d->imp.reset_every || !f->l4 || f->proto != 6 || f->plen < 1000)
		return false;
	return ++d->bulk % d->imp.reset_every == 0 && d->resets < d->imp.resets_max;
}

/* Replace the frame by a RST to each end: the receiver's at the frame's
 * seq (the next byte it expects), the sender's at the frame's ack. */
static void forge_resets(struct dir *d, const uint8_t *fr, const struct facts *f)
{
	uint8_t rst[54];

	rst_frame(rst, fr, fr + 6, f->src, f->dst, f->sport, f->dport, f->seq, f->ack);
	send_frame(d, rst, sizeof(rst));
	rst_frame(rst, fr + 6, fr, f->dst, f->src, f->dport, f->sport, f->ack, f->seq + f->plen);
	send_frame(d->back, rst, sizeof(rst));
	d->resets++;
}

static int64_t frame_delay(struct dir *d)
{
	double j = d->imp.jitter_us * (2 * rng_unit(&d->rng) - 1);
	double us = d->imp.delay_us + j;

	return us > 0 ? (int64_t)us : 0;
}

/* Every frame is decoded, dropped or not: a first fragment that passes
 * still names the xid of the fragments after it that may not. */
static void handle_frame(struct dir *d, const uint8_t *fr, uint32_t len)
{
	const char *why = NULL;
	struct facts f;
	int64_t delay;
	struct slot *s;

	d->frames++;
	decode(fr, len, &f);
	if (drop_it(d, fr, len, &why)) {
		d->dropped++;
		log_drop(d, &f, len, why);
		return;
	}
	if (reset_due(d, &f)) {
		d->dropped++;
		log_drop(d, &f, len, "reset");
		forge_resets(d, fr, &f);
		return;
	}
	delay = frame_delay(d);
	if (d->imp.ackdelay_us > 0 && f.l4 && f.proto == 6 && !f.plen &&
	    (f.tflags & 0x17) == 0x10)
		delay += (int64_t)d->imp.ackdelay_us;	/* a pure ACK: no SYN/FIN/RST */
	if (d->imp.rpcdelay_us > 0) {
		int64_t now = mono_us();
		int64_t due = now + (f.plen > 0 || (f.frag && f.off) ?
				     (int64_t)d->imp.rpcdelay_us : 0);

		/* strictly after the frame ahead: flush_due sends by deadline */
		if (due <= d->last_due_us)
			due = d->last_due_us + 1;
		d->last_due_us = due;
		delay = due - now;	/* 0: nothing ahead of it is queued */
	}
	if (!delay && !d->nq) {
		send_frame(d, fr, len);
		return;
	}
	if (d->nq == QUEUE_MAX) {
		d->dropped++;
		log_drop(d, &f, len, "overflow");
		return;
	}
	s = &d->q[d->nq++];
	s->due_us = mono_us() + delay;
	s->len = (uint16_t)len;
	memcpy(s->data, fr, len);
}

/* Send every frame that is due, earliest deadline first; return
 * microseconds to the next deadline (-1: nothing queued).  The queue is
 * small, so a linear scan per frame will do. */
static int64_t flush_due(struct dir *d)
{
	int64_t now = mono_us();

	while (d->nq > 0) {
		struct slot *s = &d->q[0];
		int i;

		for (i = 1; i < d->nq; i++)
			if (d->q[i].due_us < s->due_us)
				s = &d->q[i];
		if (s->due_us > now)
			return s->due_us - now;
		if (now - s->due_us > d->max_late_us)
			d->max_late_us = now - s->due_us;
		send_frame(d, s->data, s->len);
		*s = d->q[--d->nq];	/* order is by due time, not slot */
	}
	return -1;
}

static void drain_input(struct dir *d)
{
	uint8_t fr[FRAME_MAX];
	ssize_t n;
	int burst = 64;	/* then let the other direction and the queue run */

	while (burst-- > 0 && (n = read(d->in, fr, sizeof(fr))) > 0)
		handle_frame(d, fr, (uint32_t)n);
}

/* ------------------------------------------------------------- setup -- */

static int tap_open(const char *nspath, const char *name)
{
	struct ifreq ifr;
	int home, ns, fd;

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ns = open(nspath, O_RDONLY | O_CLOEXEC);
	if (home < 0 || ns < 0 || setns(ns, CLONE_NEWNET) < 0) {
		fprintf(stderr, "tapfwd: netns %s: %s\n", nspath, strerror(errno));
		return -1;
	}
	/* TUNSETIFF creates the device in the namespace we are in now */
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0) {
		fprintf(stderr, "tapfwd: tap %s in %s: %s\n", name, nspath, strerror(errno));
		return -1;
	}
	if (setns(home, CLONE_NEWNET) < 0)
		return -1;
	close(home);
	close(ns);
	return fd;
}

static int parse_spec(char *spec, struct impair *imp)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		double v;

		if (!eq)
			return -1;
		*eq = 0;
		v = strtod(eq + 1, NULL);
		if (!strcmp(tok, "delay"))
			imp->delay_us = v * 1000;
		else if (!strcmp(tok, "jitter"))
			imp->jitter_us = v * 1000;
		else if (!strcmp(tok, "loss"))
			imp->loss = v;
		else if (!strcmp(tok, "fragloss"))
			imp->fragloss = v;
		else if (!strcmp(tok, "rpcdelay"))
			imp->rpcdelay_us = v * 1000;
		else if (!strcmp(tok, "ackdelay"))
			imp->ackdelay_us = v * 1000;
		else if (!strcmp(tok, "reset"))
			imp->reset_every = (uint64_t)v;
		else if (!strcmp(tok, "resets"))
			imp->resets_max = (uint64_t)v;
		else
			return -1;
	}
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fputs("usage: tapfwd --ns-a PATH --dev-a NAME --ns-b PATH --dev-b NAME\n"
	      "              [--seed N] [--ab SPEC] [--ba SPEC] --log FILE\n"
	      "       SPEC = delay=MS,jitter=MS,loss=P,fragloss=P,rpcdelay=MS,\n"
	      "              ackdelay=MS,reset=N,resets=M\n", stderr);
	exit(2);
}

struct opts {
	const char *ns[2], *dev[2], *log;
	uint64_t seed;
};

static void parse_args(int argc, char **argv, struct opts *o, struct dir *d)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--ns-a"))
			o->ns[0] = v;
		else if (!strcmp(a, "--ns-b"))
			o->ns[1] = v;
		else if (!strcmp(a, "--dev-a"))
			o->dev[0] = v;
		else if (!strcmp(a, "--dev-b"))
			o->dev[1] = v;
		else if (!strcmp(a, "--log"))
			o->log = v;
		else if (!strcmp(a, "--seed"))
			o->seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--ab") && !parse_spec(v, &d[0].imp))
			continue;
		else if (!strcmp(a, "--ba") && !parse_spec(v, &d[1].imp))
			continue;
		else
			usage();
	}
	if (!o->ns[0] || !o->ns[1] || !o->dev[0] || !o->dev[1] || !o->log)
		usage();
}

static void run(struct dir *d)
{
	struct pollfd p[2] = { { d[0].in, POLLIN, 0 }, { d[1].in, POLLIN, 0 } };

	while (!stop) {
		int64_t n0 = flush_due(&d[0]), n1 = flush_due(&d[1]), next = n0;
		struct timespec ts = { 0, 200 * 1000000L };

		if (next < 0 || (n1 >= 0 && n1 < next))
			next = n1;
		/* ppoll, not poll: a millisecond timeout would delay each frame
		 * by up to 1 ms more than its draw */
		if (next >= 0) {
			ts.tv_sec = next / 1000000;
			ts.tv_nsec = (long)(next % 1000000) * 1000;
		}
		if (ppoll(p, 2, &ts, NULL) < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN)
			drain_input(&d[0]);
		if (p[1].revents & POLLIN)
			drain_input(&d[1]);
	}
}

static void finish(struct dir *d)
{
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < d[k].nq; i++) {
			struct facts f;

			decode(d[k].q[i].data, d[k].q[i].len, &f);
			log_drop(&d[k], &f, d[k].q[i].len, "shutdown");
		}
		d[k].dropped += (uint64_t)d[k].nq;
	}
	for (int k = 0; k < 2; k++)
		fprintf(droplog, "{\"summary\":\"%s\",\"frames\":%" PRIu64 ",\"forwarded\":%" PRIu64
			",\"dropped\":%" PRIu64 ",\"write_errors\":%" PRIu64
			",\"max_late_us\":%" PRId64 ",\"resets\":%" PRIu64 "}\n", d[k].name,
			d[k].frames, d[k].fwd, d[k].dropped, d[k].write_err, d[k].max_late_us,
			d[k].resets);
	fclose(droplog);
}

int main(int argc, char **argv)
{
	struct dir d[2] = { { .name = "ab", .imp.resets_max = 1 },
			    { .name = "ba", .imp.resets_max = 1 } };
	struct opts o = { .seed = 1 };
	struct sigaction sa = { .sa_handler = on_signal };
	int fd[2];

	parse_args(argc, argv, &o, d);
	for (int k = 0; k < 2; k++) {
		fd[k] = tap_open(o.ns[k], o.dev[k]);
		d[k].q = malloc(sizeof(struct slot) * QUEUE_MAX);
		if (fd[k] < 0 || !d[k].q)
			return 1;
		/* one stream per direction from the seed: independent, repeatable */
		d[k].rng = o.seed * 2 + (uint64_t)k;
	}
	d[0].in = d[1].out = fd[0];
	d[1].in = d[0].out = fd[1];
	d[0].back = &d[1];
	d[1].back = &d[0];
	droplog = fopen(o.log, "w");
	if (!droplog) {
		perror(o.log);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	run(d);
	finish(d);
	free(d[0].q);
	free(d[1].q);
	return 0;
}
