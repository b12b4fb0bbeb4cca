/*
 * fanout.c - one live capture of several processes (workers): Linux's
 * PACKET_FANOUT, each packet to one socket of the group.
 *
 * The workers share the group id (cap_config.fanout) and the interface.
 * A packet goes to the worker a classic BPF program picks from its IP
 * addresses only, the same for both directions (source xor destination,
 * then mixed): a host pair's calls and replies, its UDP retransmissions
 * from other client ports, its TCP connections and its IP fragments (no
 * ports in them) all reach one worker, so each matches calls to replies
 * as one capture would.  A packet that is neither IPv4 nor IPv6 goes to
 * the group's first socket.  Each worker's results are its host pairs'
 * (record: `report A.db B.db` merges them).  One client and one server
 * are one worker's, however busy.
 */
#include "capture/capture_int.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#ifdef __linux__
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#define LD_PROTO BPF_STMT(BPF_LD | BPF_H | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL)
/* a 32-bit word of the network header (wherever the link header ends) */
#define LD_NET(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_NET_OFF + (off))
#define XOR_NET(off) LD_NET(off), BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0), \
	BPF_STMT(BPF_MISC | BPF_TAX, 0)

/* A = the xor of the two addresses' words, mixed; the kernel takes it
 * modulo the group's size. */
static struct sock_filter fanout_prog[] = {
	LD_PROTO,
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0800, 0, 5),
	/* IPv4: source at 12, destination at 16 */
	LD_NET(12), BPF_STMT(BPF_MISC | BPF_TAX, 0),
	LD_NET(16), BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
	BPF_JUMP(BPF_JMP | BPF_JA, 24, 0, 0),	/* to mix (31) */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x86dd, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, 0),
	/* IPv6: source at 8..23, destination at 24..39 */
	LD_NET(8), BPF_STMT(BPF_MISC | BPF_TAX, 0),
	XOR_NET(12), XOR_NET(16), XOR_NET(20), XOR_NET(24), XOR_NET(28),
	XOR_NET(32), LD_NET(36), BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
	/* mix (31): */
	BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 0x9e3779b1u),
	BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 16),
	BPF_STMT(BPF_RET | BPF_A, 0),
};

/* the jumps above count on it */
_Static_assert(sizeof(fanout_prog) / sizeof(fanout_prog[0]) == 34,
	       "fanout_prog: jump offsets");

int cap_fanout_join(struct pcap *pc, int group, char *errbuf)
{
	struct sock_fprog prog = {
		.len = sizeof(fanout_prog) / sizeof(fanout_prog[0]),
		.filter = fanout_prog,
	};
	int fd = pcap_fileno(pc);
	int v = (group & 0xffff) | PACKET_FANOUT_CBPF << 16;

	if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &v, sizeof(v)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_FANOUT_DATA, &prog,
		       sizeof(prog)) < 0) {
		snprintf(errbuf, CAP_ERRBUF_SIZE, "cannot join fanout group %d: %s",
			 group, strerror(errno));
		return -1;
	}
	return 0;
}
#else
int cap_fanout_join(struct pcap *pc, int group, char *errbuf)
{
	(void)pc;
	snprintf(errbuf, CAP_ERRBUF_SIZE, "fanout group %d: only on Linux", group);
	return -1;
}
#endif
