/*
 * capture_int.h - internals shared by the capture/ files.  Not installed,
 * not included outside capture/ (and capture's own tests).
 *
 * Packet path:  link.c (cap_pipe_feed) -> ip.c (cap_ip_input)
 *   -> ipfrag.c (cap_frag_input, fragments only) -> ip.c (cap_l4_input)
 *   -> UDP delivered in ip.c, TCP handed to tcp.c (cap_tcp_input).
 * Every stage compares lengths, never pointers; "caplen" is what was
 * captured, "len" what was on the wire, caplen <= len always.
 */
#ifndef NFSCOPE_CAPTURE_INT_H
#define NFSCOPE_CAPTURE_INT_H

#include <stdio.h>

#include "capture/capture.h"

#define CAP_REC_MAX (16u << 20)	/* largest sane record / fragment */
#define CAP_REC_MIN 20u		/* smallest RPC message (AUTH_ERROR reply) */

#define CAP_DEF_FRAG_MEM (2u << 20)
#define CAP_DEF_FRAG_TIMEOUT_MS 30000u
#define CAP_DEF_FLOWS 8192u
#define CAP_DEF_FLOW_IDLE_MS 300000u
#define CAP_DEF_RECORD_KEEP (256u << 10)
#define CAP_DEF_OOO_MEM (1u << 20)
#define CAP_DEF_TCP_MEM (8u << 20)

static inline uint16_t cap_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t cap_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Has at least limit ns passed from then to now (capture clock)?  now is
 * the latest timestamp seen, so now >= then; no signed overflow. */
static inline bool cap_aged(int64_t then, int64_t now, uint64_t limit)
{
	return now >= then && (uint64_t)now - (uint64_t)then >= limit;
}

/* One IP payload (after reassembly if any) handed to the transport layer.
 * data is borrowed from the packet or from the fragment table. */
struct cap_l3 {
	struct cap_addr src, dst;
	uint8_t proto;		/* IP protocol / IPv6 next header */
	uint32_t flags;		/* CAP_MSG_IPFRAG, CAP_MSG_TRUNCATED */
	const uint8_t *data;
	uint32_t caplen, len;
	uint64_t first_frame;
	int64_t first_ts_ns;
};

/* One IP fragment handed to reassembly; data borrowed from the packet. */
struct cap_frag_in {
	struct cap_addr src, dst;
	uint32_t id;
	uint8_t proto;		/* v4: key part; v6: next header after frag */
	uint32_t off;		/* byte offset of the fragment */
	bool more;		/* MF set */
	const uint8_t *data;
	uint32_t caplen, len;
};

struct cap_frag_table;
struct cap_tcp_table;

/* The pipe.  Owned by the caller; owns frag and tcp. */
struct cap_pipe {
	struct cap_config cfg;	/* copy, defaults filled in; filter unused */
	cap_msg_fn fn;
	void *user;
	struct cap_stats st;
	uint64_t frame;		/* number of the frame being processed */
	int64_t ts_ns;		/* its timestamp */
	int64_t now_ns;		/* capture clock: latest timestamp seen */
	struct cap_frag_table *frag;
	struct cap_tcp_table *tcp;
	size_t tcp_mem;		/* bytes TCP holds (tcp_int.h) */
	struct cap_handshake hs[CAP_HANDSHAKE_PAIRS];
	uint64_t hs_dropped;
};

/* IP protocol numbers ip.c and l4.c read (netinet/in.h's, without it) */
#define IPPROTO_HOPOPTS_ 0
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define IPPROTO_ROUTING_ 43
#define IPPROTO_FRAGMENT_ 44
#define IPPROTO_AH_ 51
#define IPPROTO_DSTOPTS_ 60

/* ip.c */
void cap_ip_input(struct cap_pipe *p, const uint8_t *d, uint32_t caplen,
		  uint32_t len);

/* l4.c: a datagram to UDP (a message) or TCP (tcp.c) */
void cap_l4_input(struct cap_pipe *p, struct cap_l3 *l3);
/* A header of hlen bytes does not fit: ip_errors if the wire did not have
 * it either (else the frame was truncated: counted by the pipe). */
void cap_short_header(struct cap_pipe *p, uint32_t hlen, uint32_t len);
/* Walk IPv6 extension headers from next header *nh at l3->data (see l4.c);
 * false if the packet was skipped (and counted). */
bool cap_ip6_walk(struct cap_pipe *p, struct cap_l3 *l3, uint8_t *nh,
		  struct cap_frag_in *fr, bool *is_frag);

/* ipfrag.c */
struct cap_frag_table *cap_frag_new(void);
void cap_frag_free(struct cap_frag_table *t);
void cap_frag_input(struct cap_pipe *p, const struct cap_frag_in *f,
		    int ipver);
/* Drop trains older than the timeout (all of them if all). */
void cap_frag_expire(struct cap_pipe *p, bool all);

/* tcp.c */
struct cap_tcp_table *cap_tcp_new(uint32_t flows_max);
void cap_tcp_free(struct cap_tcp_table *t);
void cap_tcp_input(struct cap_pipe *p, const struct cap_l3 *l3);
/* Finish idle flows (all of them if all). */
void cap_tcp_expire(struct cap_pipe *p, bool all);

/* pcapfile.c: the fast reader of a classic pcap file, for source.c.  It
 * takes a file libpcap has opened (the file header, libpcap's snapshot
 * length) and reads records from the fd with pread, from offset 24 on.
 * cap_file_next: 1 a packet (pkt's data borrowed until the next call; its
 * linktype is the caller's), 0 stop: the record at cap_file_pos is one
 * for libpcap (the end of the file, a cut or unusual record, a read
 * error).  cap_file_new: NULL if the header is not one it reads (native
 * byte order, version 2.4) or out of memory. */
/* fanout.c: join live capture pc to PACKET_FANOUT group `group` (the
 * workers sharing it each get their host pairs' packets); -1 with errbuf
 * set if it cannot (not Linux, an old kernel, another kind of group). */
struct pcap;
int cap_fanout_join(struct pcap *pc, int group, char *errbuf);

struct cap_file;
bool cap_file_header_ok(const uint8_t hdr[24]);
struct cap_file *cap_file_new(int fd, const uint8_t hdr[24], int snapshot);
void cap_file_free(struct cap_file *f);
int cap_file_next(struct cap_file *f, struct cap_pkt *pkt);
uint64_t cap_file_pos(const struct cap_file *f);

/* zfile.c: a capture file, through its decoder when it is compressed
 * (by its magic bytes, also on a pipe or stdin); "-" is stdin.  mem_max:
 * the memory xz or zstd may take (0: CAP_ZMEM_DEFAULT).  *state (NULL:
 * not asked) is set for a decoded stream, owned by the FILE (valid until
 * fclose): why reading stopped on damage or the memory limit, after every
 * byte decoded before it.  NULL with errbuf ("path: what"). */
enum cap_zkind { CAP_Z_NONE, CAP_Z_GZIP, CAP_Z_ZSTD, CAP_Z_XZ, CAP_Z_BZIP2,
		 CAP_Z_N };
#define CAP_ZMEM_DEFAULT (256ull << 20)
struct cap_zstate {
	enum cap_zkind kind;
	bool damaged;		/* stopped on damage or the memory limit */
	uint64_t in_off;	/* compressed bytes used when it stopped */
	uint64_t out_off;	/* uncompressed bytes delivered */
	char why[200];		/* "xz: damaged data ..." */
};
FILE *cap_zopen(const char *path, uint64_t mem_max, enum cap_zkind *kind,
		const struct cap_zstate **state, char *errbuf);
const char *cap_zname(enum cap_zkind k);

#endif
