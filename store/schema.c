/* schema.c - open/create a store, its schema and version checks; see
 * store.h.  The schema is the stable interface for SQL users
 * (doc/store.md): add columns and tables in new versions, never change the
 * meaning of an existing one. */
#include "store/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define APP_ID 0x6e667363	/* "nfsc": PRAGMA application_id */

#define RS(f) { #f, offsetof(struct store_run, f), false, 0 }
#define CS(f) { #f, offsetof(struct store_run, cs.f), false, 0 }
#define DS(f) { "dec_" #f, offsetof(struct store_run, ds.f), false, 0 }
#define ES(f) { "eng_" #f, offsetof(struct store_run, es.f), false, 0 }
#define CS3(f) { #f, offsetof(struct store_run, cs.f), false, 3 }
#define V3(pfx, m, f) { pfx #f, offsetof(struct store_run, m.f), false, 3 }
#define V4(pfx, m, f) { pfx #f, offsetof(struct store_run, m.f), false, 4 }
#define V6(pfx, m, f) { pfx #f, offsetof(struct store_run, m.f), false, 6 }
const struct store_col store_run_cols[] = {
	RS(first_ns), RS(last_ns), RS(rpc_msgs), RS(ops_stored),
	CS(packets), CS(bytes), CS(truncated), CS(link_errors), CS(not_ip),
	CS(ip_errors), CS(other_proto), CS(udp_msgs), CS(tcp_msgs),
	CS(ipfrag_packets), CS(ipfrag_reassembled), CS(ipfrag_incomplete),
	CS(ipfrag_overlaps), CS(ipfrag_evicted), CS(tcp_segments),
	CS(tcp_not_rpc), CS(tcp_retrans), CS(tcp_ooo), CS(tcp_gaps),
	CS(tcp_gap_bytes), CS(tcp_resyncs), CS(flows), CS(flows_evicted),
	CS(flows_expired), CS(ps_recv), CS(ps_drop), CS(ps_ifdrop),
	DS(msgs), DS(not_rpc), DS(calls), DS(replies), DS(orphan_replies),
	DS(reply_mismatch), DS(truncated), DS(malformed), DS(xid_evictions),
	ES(calls), ES(replies), ES(ops), ES(answered), ES(unanswered),
	ES(unanswered_expired), ES(unanswered_at_end), ES(evicted),
	ES(retrans), ES(late_retrans), ES(dup_replies), ES(replies_unmatched),
	ES(misfit_replies), ES(xid_reused), ES(retired_early),
	ES(names_evicted),
	{ "eng_pending_peak", offsetof(struct store_run, es.pending_peak), true, 0 },
	/* version 3: TCP records hidden by the snaplen (capture.h) */
	CS3(snap_caplen), CS3(tcp_hidden_spans), CS3(tcp_hidden_bytes),
	CS3(tcp_hidden_calls), CS3(tcp_hidden_replies), CS3(tcp_hidden_flows),
	CS3(tcp_seg_max), CS3(tcp_seg_cut_max),
	{ "eng_reply_not_seen", offsetof(struct store_run, es.reply_not_seen),
	  false, 3 },
	/* version 3: replies whose call was not seen, by their shape */
	V3("dec_", ds, shape_fit), V3("dec_", ds, shape_ambiguous),
	V3("dec_", ds, shape_nofit), V3("eng_", es, from_replies),
	/* version 4: TCP records hidden by the direction lock, TCP buffers
	 * given up for --tcp-mem, replies held for a later call and the
	 * clock skew tolerated (until then only in report -r and dump) */
	V4("", cs, tcp_rejected), V4("", cs, tcp_mem_evicted),
	V4("dec_", ds, late_held), V4("dec_", ds, late_matched),
	V4("dec_", ds, late_expired), V4("dec_", ds, late_over_budget),
	V4("dec_", ds, skew_tolerated),
	/* version 6: TCP holes the receiver acknowledged (the capture
	 * missed them): the verdict's "complete" */
	V6("", cs, tcp_gaps_missed), V6("", cs, tcp_gap_missed_bytes),
};
#undef RS
#undef CS
#undef DS
#undef ES
#undef CS3
#undef V3
#undef V4
#undef V6
const size_t store_run_ncols = sizeof(store_run_cols) / sizeof(store_run_cols[0]);

/* Version 2.  Spans of live capture in which the kernel (ps_drop) or the
 * interface (ps_ifdrop) lost packets: what was recorded for that time is
 * incomplete. */
#define DROPS_SQL \
	"CREATE TABLE IF NOT EXISTS drops(run INTEGER NOT NULL, " \
	"  start_ns INTEGER, end_ns INTEGER, ps_drop INTEGER, " \
	"  ps_ifdrop INTEGER);\n" \
	"CREATE INDEX IF NOT EXISTS drops_run ON drops(run, start_ns);\n"

/* Version 3.  READ/WRITE sizes granted in replies whose call was not
 * seen (decoded by their shape): table sizes holds the sizes asked by the
 * calls seen, this one what the hidden calls got. */
#define SIZES_REP_SQL \
	"CREATE TABLE IF NOT EXISTS sizes_from_replies(run INTEGER NOT NULL, " \
	"  client TEXT, server TEXT, op TEXT, size INTEGER, ops INTEGER);\n" \
	"CREATE INDEX IF NOT EXISTS sizes_from_replies_run ON " \
	"  sizes_from_replies(run, client);\n"

/* Issue 16: TCP handshakes and ACK timing per client/server pair
 * (capture.h struct cap_handshake), for the vantage point.  Made when a
 * run ends (also in older files, which only lack it); a table made
 * before the ACK timing gains its columns then (store_ack_cols_sql). */
const char store_handshakes_sql[] =
	"CREATE TABLE IF NOT EXISTS handshakes(run INTEGER NOT NULL, "
	"  client TEXT, server TEXT, n INTEGER, syn_min_ns INTEGER, "
	"  syn_sum_ns INTEGER, ack_min_ns INTEGER, ack_sum_ns INTEGER, "
	"  srv_acks INTEGER, srv_ack_min_ns INTEGER, cli_acks INTEGER, "
	"  cli_ack_min_ns INTEGER);\n";
const char store_ack_cols_sql[] =
	"ALTER TABLE handshakes ADD COLUMN srv_acks INTEGER;\n"
	"ALTER TABLE handshakes ADD COLUMN srv_ack_min_ns INTEGER;\n"
	"ALTER TABLE handshakes ADD COLUMN cli_acks INTEGER;\n"
	"ALTER TABLE handshakes ADD COLUMN cli_ack_min_ns INTEGER;\n";

/* Issue 30: TCP health per client/server pair (capture.h struct
 * cap_handshake segs ... stall_ns; _c2s client -> server, _s2c the
 * reverse), for the verdict.  Made when a run ends. */
const char store_tcp_health_sql[] =
	"CREATE TABLE IF NOT EXISTS tcp_health(run INTEGER NOT NULL, "
	"  client TEXT, server TEXT, segs_c2s INTEGER, segs_s2c INTEGER, "
	"  resent_c2s INTEGER, resent_s2c INTEGER, dupack_loss_c2s INTEGER, "
	"  dupack_loss_s2c INTEGER, zero_win_c2s INTEGER, zero_win_s2c "
	"  INTEGER, rsts_c2s INTEGER, rsts_s2c INTEGER, stalls40_c2s "
	"  INTEGER, stalls40_s2c INTEGER, stalls200_c2s INTEGER, "
	"  stalls200_s2c INTEGER, stall_ns_c2s INTEGER, stall_ns_s2c "
	"  INTEGER);\n";

/*
 * Version 5 (issue 18): operations in a compact table, op_rows, whose
 * hosts, procedures, handles and write verifiers (op_blobs), machine
 * names and paths (op_strings) are integer keys into small tables
 * (keys.h); a handle or verifier is stored in its row (a blob) until it
 * comes again, then it gets a key (one seen once costs no row of its own,
 * fh, rfh and verf are a blob or a key); times are
 * offsets from a base per run (op_runs) and from the first call; what
 * few operations have (retransmissions, duplicate replies, a second
 * client port, FSINFO and STATFS sizes) is a row of op_more; an empty
 * value is NULL (one byte).  The view ops gives every column of the
 * table ops of versions 1-4 under its name, with the same values, so the
 * documented queries read as before.  No index on time (--retain makes
 * one: op_rows_time); the path's index went with the text.
 */
#define OP_ROWS_SQL \
	"CREATE TABLE op_runs(run INTEGER PRIMARY KEY, base_ns INTEGER " \
	"  NOT NULL);\n" \
	"CREATE TABLE op_hosts(id INTEGER PRIMARY KEY, addr TEXT NOT NULL);\n" \
	"CREATE TABLE op_procs(id INTEGER PRIMARY KEY, prog INTEGER, " \
	"  vers INTEGER, proc INTEGER, op TEXT);\n" \
	"CREATE TABLE op_blobs(id INTEGER PRIMARY KEY, data BLOB NOT NULL);\n" \
	"CREATE TABLE op_strings(id INTEGER PRIMARY KEY, text TEXT NOT NULL);\n" \
	"CREATE TABLE op_rows(id INTEGER PRIMARY KEY, run INTEGER NOT NULL, " \
	"  call_frame INTEGER, reply_dframe INTEGER, first_call_dns INTEGER, " \
	"  reply_dns INTEGER, client INTEGER, server INTEGER, " \
	"  client_port INTEGER, server_port INTEGER, tcp INTEGER, " \
	"  xid INTEGER, proc INTEGER, error INTEGER, flags INTEGER, " \
	"  have INTEGER, uid INTEGER, gid INTEGER, machine INTEGER, " \
	"  fh, rfh, " \
	"  export_id INTEGER, path INTEGER, name TEXT, file_offset INTEGER, " \
	"  count INTEGER, rcount INTEGER, eof INTEGER, stable INTEGER, " \
	"  committed INTEGER, verf, reply_stat INTEGER, " \
	"  accept_stat INTEGER, status INTEGER, call_len INTEGER, " \
	"  reply_len INTEGER);\n" \
	"CREATE TABLE op_more(id INTEGER PRIMARY KEY, last_call_dns INTEGER, " \
	"  retrans_ivl_first_ns INTEGER, retrans_ivl_max_ns INTEGER, " \
	"  retrans INTEGER, dup_replies INTEGER, client_port_last INTEGER, " \
	"  rtmax INTEGER, rtpref INTEGER, wtmax INTEGER, wtpref INTEGER, " \
	"  dtpref INTEGER, tsize INTEGER);\n"

/* The view's columns over op_rows o (and its keys' tables), in the order
 * of the old table ops (id first). */
#define OPS_VIEW_COLS \
	"o.id AS id, o.run AS run, o.call_frame AS call_frame, " \
	"CASE WHEN o.reply_dframe IS NULL THEN 0 ELSE o.call_frame + " \
	"  o.reply_dframe END AS reply_frame, " \
	"b.base_ns + o.first_call_dns AS first_call_ns, " \
	"b.base_ns + o.first_call_dns + coalesce(x.last_call_dns, 0) " \
	"  AS last_call_ns, " \
	"b.base_ns + o.first_call_dns + o.reply_dns AS reply_ns, " \
	"max(o.reply_dns, 0) AS lat_first_ns, " \
	"max(o.reply_dns - coalesce(x.last_call_dns, 0), 0) AS lat_last_ns, " \
	"coalesce(x.retrans_ivl_first_ns, 0) AS retrans_ivl_first_ns, " \
	"coalesce(x.retrans_ivl_max_ns, 0) AS retrans_ivl_max_ns, " \
	"coalesce(x.retrans, 0) AS retrans, " \
	"coalesce(x.dup_replies, 0) AS dup_replies, c.addr AS client, " \
	"s.addr AS server, o.client_port AS client_port, " \
	"coalesce(x.client_port_last, o.client_port) AS client_port_last, " \
	"o.server_port AS server_port, " \
	"CASE o.tcp WHEN 1 THEN 'tcp' ELSE 'udp' END AS transport, " \
	"o.xid & 4294967295 AS xid, p.prog AS prog, p.vers AS vers, " \
	"p.proc AS proc, p.op AS op, o.error AS error, o.flags AS flags, " \
	"o.have AS have, o.uid AS uid, o.gid AS gid, " \
	"coalesce(m.text, '') AS machine, " \
	"CASE WHEN typeof(o.fh) = 'blob' THEN o.fh ELSE coalesce(f.data, X'') " \
	"  END AS fh, " \
	"CASE WHEN typeof(o.rfh) = 'blob' THEN o.rfh ELSE coalesce(r.data, X'') " \
	"  END AS rfh, o.export_id AS export_id, " \
	"coalesce(pa.text, '') AS path, coalesce(o.name, '') AS name, " \
	"o.file_offset AS file_offset, o.count AS count, o.rcount AS rcount, " \
	"o.eof AS eof, o.stable AS stable, o.committed AS committed, " \
	"CASE WHEN typeof(o.verf) = 'blob' THEN o.verf ELSE v.data END " \
	"  AS verf, o.reply_stat AS reply_stat, " \
	"o.accept_stat AS accept_stat, o.status AS status, " \
	"o.call_len AS call_len, o.reply_len AS reply_len, " \
	"coalesce(x.rtmax, 0) AS rtmax, coalesce(x.rtpref, 0) AS rtpref, " \
	"coalesce(x.wtmax, 0) AS wtmax, coalesce(x.wtpref, 0) AS wtpref, " \
	"coalesce(x.dtpref, 0) AS dtpref, coalesce(x.tsize, 0) AS tsize " \
	"FROM op_rows o LEFT JOIN op_runs b ON b.run = o.run " \
	"LEFT JOIN op_more x ON x.id = o.id " \
	"LEFT JOIN op_hosts c ON c.id = o.client " \
	"LEFT JOIN op_hosts s ON s.id = o.server " \
	"LEFT JOIN op_procs p ON p.id = o.proc " \
	"LEFT JOIN op_strings m ON m.id = o.machine " \
	"LEFT JOIN op_blobs f ON f.id = o.fh " \
	"LEFT JOIN op_blobs r ON r.id = o.rfh " \
	"LEFT JOIN op_blobs v ON v.id = o.verf " \
	"LEFT JOIN op_strings pa ON pa.id = o.path"

/* The view ops with the xid as dump and tshark print it (0x%08x), first.
 * In a printf format (schema_sql goes through sqlite3_mprintf). */
#define OPS_HEX_SQL "CREATE VIEW IF NOT EXISTS ops_hex AS SELECT " \
	"printf('0x%%08x', xid) AS xid_hex, * FROM ops;\n" SESSIONS_SQL

/* NFSv4.1+ sessions: each CREATE_SESSION answered (AN_HAVE_SESSION in
 * ops.have; its fore channel's sizes are in the row's wtmax and rtmax). */
#define SESSIONS_SQL "CREATE VIEW IF NOT EXISTS sessions AS SELECT run, " \
	"client, server, reply_ns, wtmax AS maxreq, rtmax AS maxresp FROM " \
	"ops WHERE prog = 100003 AND vers = 4 AND (have & 65536) <> 0;\n"

#define OPS_SQL OP_ROWS_SQL "CREATE VIEW ops AS SELECT " OPS_VIEW_COLS ";\n" \
	OPS_HEX_SQL

/* A file of versions 1-4 appended to: its table ops becomes ops_v4, as it
 * was, and the view ops reads both (op_rows' ids go on after ops_v4's: a
 * placeholder row of run 0 holds the last old id; the view skips it). */
static const char ops_v4_sql[] =
	"ALTER TABLE ops RENAME TO ops_v4;\n"
	OP_ROWS_SQL
	"INSERT INTO op_rows(id, run) SELECT id, 0 FROM ops_v4 "
	"  ORDER BY id DESC LIMIT 1;\n"
	"CREATE VIEW ops AS SELECT " OPS_VIEW_COLS " WHERE o.run <> 0 "
	"UNION ALL SELECT id, " STORE_OPS_COLUMNS " FROM ops_v4;\n";

static const char schema_sql[] =
	"CREATE TABLE schema_version(version INTEGER NOT NULL, "
	"  app TEXT NOT NULL);\n"
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, source TEXT, filter TEXT, "
	"  snaplen INTEGER, live INTEGER, ops_mode TEXT, slow_ns INTEGER, "
	"  interval_ns INTEGER, retain_ns INTEGER, started INTEGER, "
	"  ended INTEGER, state TEXT, read_error TEXT, "
	"  read_error_offset INTEGER%s);\n"
	OPS_SQL
	"CREATE TABLE intervals(run INTEGER NOT NULL, start_ns INTEGER, "
	"  prog INTEGER, vers INTEGER, proc INTEGER, op TEXT, client TEXT, "
	"  server TEXT, calls INTEGER, answered INTEGER, unanswered INTEGER, "
	"  errors INTEGER, retrans INTEGER, dup_replies INTEGER, "
	"  bytes INTEGER, data_bytes INTEGER, lat_count INTEGER, "
	"  lat_sum_ns REAL, lat_min_ns INTEGER, lat_max_ns INTEGER, "
	"  lat_hist BLOB, lat_p50_ns INTEGER, lat_p90_ns INTEGER, "
	"  lat_p99_ns INTEGER);\n"
	"CREATE INDEX intervals_time ON intervals(run, start_ns);\n"
	"CREATE TABLE sizes(run INTEGER NOT NULL, client TEXT, server TEXT, "
	"  op TEXT, size INTEGER, calls INTEGER);\n"
	"CREATE INDEX sizes_run ON sizes(run, client);\n"
	"CREATE TABLE fsinfo(run INTEGER NOT NULL, server TEXT, "
	"  rtmax INTEGER, rtpref INTEGER, wtmax INTEGER, wtpref INTEGER, "
	"  dtpref INTEGER, statfs_tsize INTEGER, write_verifier TEXT, "
	"  verifier_changes INTEGER);\n"
	"CREATE TABLE findings(run INTEGER NOT NULL, kind TEXT, "
	"  start_ns INTEGER, end_ns INTEGER, client TEXT, server TEXT, "
	"  fh BLOB, path TEXT, count INTEGER, peak_rate REAL, "
	"  evidence TEXT, meaning TEXT);\n"
	"CREATE INDEX findings_run ON findings(run, kind);\n"
	"CREATE TABLE names(run INTEGER NOT NULL, server TEXT, fh BLOB, "
	"  path TEXT, export_id INTEGER, PRIMARY KEY(run, server, fh));\n"
	"CREATE TABLE exports(run INTEGER NOT NULL, export_id INTEGER, "
	"  server TEXT, fh BLOB, path TEXT, PRIMARY KEY(run, export_id));\n"
	"CREATE TABLE flows(run INTEGER NOT NULL, transport TEXT, src TEXT, "
	"  sport INTEGER, dst TEXT, dport INTEGER, first_ns INTEGER, "
	"  last_ns INTEGER, msgs INTEGER, calls INTEGER, replies INTEGER, "
	"  bytes INTEGER, truncated INTEGER, ipfrag INTEGER, "
	"  multifrag INTEGER, after_gap INTEGER, holes INTEGER, "
	"  PRIMARY KEY(run, transport, src, sport, dst, dport));\n"
	DROPS_SQL SIZES_REP_SQL;

/* Is the file already an nfscope database, and which schema version? */
static int check_schema(struct store *s, const char *path, int *version,
			char *errbuf)
{
	sqlite3_stmt *q = NULL;
	int rc, app = 0, ntables = 0;
	sqlite3_int64 v = 0;

	*version = 0;
	rc = sqlite3_prepare_v2(s->db, "PRAGMA application_id", -1, &q, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW)
		app = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: not an nfscope database "
			 "(not an sqlite file)", path);
		return -1;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_err(s, errbuf, path);
	rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_schema",
				-1, &q, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW)
		ntables = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (rc == SQLITE_NOTADB) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: not an nfscope database "
			 "(not an sqlite file)", path);
		return -1;
	}
	if (rc != SQLITE_ROW)
		return store_err(s, errbuf, path);
	if (ntables == 0 && app == 0)
		return 0;	/* empty: ours to create */
	if (app != APP_ID) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: not an nfscope database "
			 "(an sqlite file of another application)", path);
		return -1;
	}
	/* the whole 64-bit value: 4294967298 is not version 2 */
	rc = sqlite3_prepare_v2(s->db, "SELECT max(version), "
				"typeof(max(version)) FROM schema_version",
				-1, &q, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW &&
	    sqlite3_column_type(q, 0) == SQLITE_INTEGER)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW || v <= 0) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: not an nfscope database "
			 "(no schema version)", path);
		return -1;
	}
	if (v > STORE_SCHEMA_VERSION) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: written by a newer "
			 "nfscope (schema version %lld, this one reads up to "
			 "%d)", path, (long long)v, STORE_SCHEMA_VERSION);
		return -1;
	}
	*version = (int)v;
	return 0;
}

/* Commit a transaction whose statements gave rc, or roll it back. */
static int end_tx(struct store *s, int rc, char *errbuf)
{
	if (rc == 0)
		rc = store_exec(s, "COMMIT", errbuf);
	if (rc < 0)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Tables in the file, or -1 if sqlite could not say. */
static int count_tables(struct store *s)
{
	sqlite3_stmt *q = NULL;
	int n = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_schema", -1,
			       &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return n;
}

/* The schema into an empty file, in one transaction: 0, or 1 if another
 * process had created it meanwhile, or -1. */
static int create_schema(struct store *s, char *errbuf)
{
	char cols[4096], *sql;
	size_t k, off = 0;
	int rc;

	for (k = 0; k < store_run_ncols; k++)
		off += (size_t)snprintf(cols + off, sizeof(cols) - off,
					", %s INTEGER", store_run_cols[k].name);
	sql = sqlite3_mprintf(schema_sql, cols);
	if (sql == NULL)
		return store_err(s, errbuf, "schema");
	if (store_exec(s, "BEGIN IMMEDIATE", errbuf) < 0) {
		sqlite3_free(sql);
		return -1;
	}
	if (count_tables(s) != 0) {	/* another process was first */
		sqlite3_free(sql);
		return end_tx(s, 0, errbuf) < 0 ? -1 : 1;
	}
	rc = store_exec(s, sql, errbuf);
	sqlite3_free(sql);
	if (rc == 0) {
		char v[160];

		snprintf(v, sizeof(v), "INSERT INTO schema_version VALUES(%d, "
			 "'nfscope'); PRAGMA application_id = %d; "
			 "PRAGMA user_version = %d;", STORE_SCHEMA_VERSION,
			 APP_ID, STORE_SCHEMA_VERSION);
		rc = store_exec(s, v, errbuf);
	}
	return end_tx(s, rc, errbuf);
}

/* The runs columns added since version 2 (versions 3 and 4) that the
 * file lacks. */
static int add_run_cols(struct store *s, char *errbuf)
{
	char sql[128];
	size_t k;

	for (k = 0; k < store_run_ncols; k++) {
		if (store_run_cols[k].since == 0 ||
		    store_has_column(s, "runs", store_run_cols[k].name))
			continue;
		snprintf(sql, sizeof(sql), "ALTER TABLE runs ADD COLUMN %s "
			 "INTEGER DEFAULT 0", store_run_cols[k].name);
		if (store_exec(s, sql, errbuf) < 0)
			return -1;
	}
	return 0;
}

/* Is ops a table (versions 1-4), not the view of version 5? */
static bool ops_is_table(struct store *s)
{
	sqlite3_stmt *q = NULL;
	bool yes = false;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_schema "
			       "WHERE name = 'ops' AND type = 'table'", -1, &q,
			       NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		yes = sqlite3_column_int(q, 0) > 0;
	sqlite3_finalize(q);
	return yes;
}

/* Version 5's percentile columns of the intervals table, filled for the
 * rows written before (from their histograms, as write.c fills them). */
static int add_pct_cols(struct store *s, char *errbuf)
{
	sqlite3_stmt *q = NULL, *u = NULL;
	struct hist h;
	int rc, ret = 0;

	if (store_has_column(s, "intervals", "lat_p50_ns"))
		return 0;
	if (store_exec(s, STORE_PCT_COLS_SQL, errbuf) < 0)
		return -1;
	if (sqlite3_prepare_v2(s->db, "SELECT lat_count, lat_sum_ns, "
			       "lat_min_ns, lat_max_ns, lat_hist, rowid FROM "
			       "intervals WHERE lat_count > 0", -1, &q,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "UPDATE intervals SET lat_p50_ns = ?1, "
			       "lat_p90_ns = ?2, lat_p99_ns = ?3 WHERE rowid = ?4",
			       -1, &u, NULL) != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_err(s, errbuf, "intervals");
	}
	hist_init(&h);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		hist_clear(&h);
		if (store_col_hist(q, 0, &h) < 0)
			continue;	/* a bad blob: its row keeps NULLs */
		store_bind_pcts(u, 1, &h);
		sqlite3_bind_int64(u, 4, sqlite3_column_int64(q, 5));
		if ((ret = store_run_stmt(s, u, errbuf, "intervals")) < 0)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = store_err(s, errbuf, "intervals");
	hist_fini(&h);
	sqlite3_finalize(q);
	sqlite3_finalize(u);
	return ret;
}

/* An older schema opened for writing: add what it lacks, in one
 * transaction (the meaning of existing tables never changes). */
static int migrate(struct store *s, int version, char *errbuf)
{
	char v[128];
	int rc;

	if (version >= STORE_SCHEMA_VERSION)
		return 0;
	if (store_exec(s, "BEGIN IMMEDIATE", errbuf) < 0)
		return -1;
	rc = store_exec(s, DROPS_SQL, errbuf);	/* 1 -> 2 */
	if (rc == 0 && !store_has_column(s, "runs", "read_error"))
		rc = store_exec(s, "ALTER TABLE runs ADD COLUMN read_error "
				"TEXT; ALTER TABLE runs ADD COLUMN "
				"read_error_offset INTEGER;", errbuf);	/* 2 -> 3 */
	if (rc == 0)
		rc = store_exec(s, SIZES_REP_SQL, errbuf);
	if (rc == 0)
		rc = add_run_cols(s, errbuf);
	if (rc == 0 && ops_is_table(s))	/* 4 -> 5 */
		rc = store_exec(s, ops_v4_sql, errbuf);
	if (rc == 0) {		/* the '%%' of the format, once */
		char *hex = sqlite3_mprintf(OPS_HEX_SQL);

		rc = hex ? store_exec(s, hex, errbuf) : -1;
		sqlite3_free(hex);
	}
	if (rc == 0)
		rc = add_pct_cols(s, errbuf);	/* 4 -> 5 */
	snprintf(v, sizeof(v), "INSERT INTO schema_version VALUES(%d, "
		 "'nfscope'); PRAGMA user_version = %d;", STORE_SCHEMA_VERSION,
		 STORE_SCHEMA_VERSION);
	if (rc == 0)
		rc = store_exec(s, v, errbuf);
	return end_tx(s, rc, errbuf);
}

/* The files sqlite keeps beside a database (a stale -wal would be
 * replayed into a new file of the same name). */
static void unlink_beside(const char *path)
{
	static const char *const sfx[] = { "-wal", "-shm", "-journal" };
	char p[PATH_MAX + 96];
	size_t k;

	for (k = 0; k < sizeof(sfx) / sizeof(sfx[0]); k++) {
		snprintf(p, sizeof(p), "%s%s", path, sfx[k]);
		unlink(p);
	}
}

/* A file of our own beside path, created exclusively (O_EXCL): its name
 * in tmp.  Returns 0, or -1 with the system's reason in errbuf. */
static int make_tmp(const char *path, char *tmp, size_t n, char *errbuf)
{
	struct timespec ts;
	int fd, k;

	for (k = 0; k < 100; k++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if ((size_t)snprintf(tmp, n, "%s.new-%ld-%ld", path,
				     (long)getpid(), (long)ts.tv_nsec + k) >= n) {
			snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: cannot create: "
				 "%s", path, strerror(ENAMETOOLONG));
			return -1;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: cannot create: %s", path,
		 strerror(errno));
	return -1;
}

/* The empty schema into the file tmp (ours). */
static int fill_tmp(const char *tmp, const char *path, char *errbuf)
{
	struct store t;
	int rc;

	memset(&t, 0, sizeof(t));
	if (sqlite3_open_v2(tmp, &t.db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = store_err(&t, errbuf, path);
	} else {
		/* page_size takes effect on a new file only: 16 KiB pages
		 * make the append-mostly inserts ~20% cheaper than 4 KiB.
		 * No journal, no fsync: a file that fails is removed whole
		 * (as durable as the WAL's synchronous=NORMAL after it) */
		rc = store_exec(&t, "PRAGMA page_size=16384; "
				"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF",
				errbuf);
		if (rc == 0)
			rc = create_schema(&t, errbuf) < 0 ? -1 : 0;
		/* the system's reason (a full disk: ENOSPC) where known */
		if (rc < 0 && t.sys_errno)
			snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: cannot create: "
				 "%s", path, strerror(t.sys_errno));
		else if (rc < 0)
			snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: cannot create: "
				 "disk full or write error", path);
	}
	if (sqlite3_close(t.db) != SQLITE_OK && rc == 0) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: cannot create", path);
		rc = -1;
	}
	return rc;
}

/*
 * A new database appears whole or not at all: the schema is written into
 * a file of our own beside path, then link()ed to path only if no other
 * process created path meanwhile (then theirs is kept and appended to),
 * or, replacing, rename()d over it.  Whatever fails, only our own file is
 * removed: nothing is left behind (a full disk, a read-only directory).
 */
static int create_file(const char *path, bool replace, char *errbuf)
{
	char tmp[PATH_MAX + 64];
	int rc = 0;

	if (make_tmp(path, tmp, sizeof(tmp), errbuf) < 0)
		return -1;
	if (fill_tmp(tmp, path, errbuf) < 0) {
		rc = -1;
	} else if (replace) {
		unlink_beside(path);	/* the old file's, asked to go */
		if (rename(tmp, path) < 0)
			rc = -1;
	} else if (link(tmp, path) < 0 && errno != EEXIST) {
		rc = -1;
	}
	if (rc < 0 && !errbuf[0])
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: cannot create: %s",
			 path, strerror(errno));
	unlink(tmp);
	unlink_beside(tmp);
	return rc;
}

/*
 * Before sqlite's first use: no memory statistics.  With them on (the
 * library's default) every sqlite malloc and free takes a global mutex:
 * about a tenth of the insert thread's time.  nfscope never asks for them.
 */
static pthread_once_t sqlite_once = PTHREAD_ONCE_INIT;

static void sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/*
 * Another process holds the database's lock (a long checkpoint, a reader
 * of the whole file, an SQL user's open transaction): wait, saying so once
 * after 10 s, and give up after STORE_BUSY_MAX_S (then the batch fails and
 * the run is marked 'failed').
 */
static int busy_wait(void *user, int n)
{
	struct store *s = user;
	struct timespec ts, nap = { 0, 20 * 1000 * 1000 };
	double now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	if (n == 0)
		s->busy_since = now;
	if (now - s->busy_since >= STORE_BUSY_MAX_S)
		return 0;
	if (now - s->busy_since >= 10 && !s->busy_said) {
		s->busy_said = true;
		fprintf(stderr, "nfscope: %s: another process holds the "
			"database's lock; waiting (up to %d s)\n",
			s->path ? s->path : "database", STORE_BUSY_MAX_S);
	}
	nanosleep(&nap, NULL);
	return 1;
}

#define SETUP_TRIES 600		/* x SETUP_PAUSE_US: a minute */
#define SETUP_PAUSE_US 100000

/* A writer's settings, then the schema made (an empty file someone else
 * made, not ours to remove) or migrated; every step idempotent. */
static int setup_writer(struct store *s, const char *path, int *version,
			char *errbuf)
{
	int rc;

	if (store_exec(s, "PRAGMA journal_mode=WAL", errbuf) < 0 ||
	    store_exec(s, "PRAGMA synchronous=NORMAL", errbuf) < 0 ||
	    store_exec(s, "PRAGMA cache_size=-32768", errbuf) < 0 ||
	    store_exec(s, "PRAGMA wal_autocheckpoint=8192", errbuf) < 0)
		return -1;
	if (*version == 0) {
		rc = create_schema(s, errbuf);
		if (rc < 0 || (rc == 1 && check_schema(s, path, version,
						       errbuf) < 0))
			return -1;
	}
	if (*version > 0 && migrate(s, *version, errbuf) < 0)
		return -1;
	return 0;
}

/* A reader the write-ahead log's index refused (a -shm or a directory it
 * cannot write, the database another user's): when the log holds nothing,
 * the main file holds everything: read it as immutable.  0, or -1 with
 * errbuf (the first failure's when this is no help). */
static int ro_again(struct store *s, const char *path, int oflags,
		    int *version, char *errbuf)
{
	char first[STORE_ERRBUF_SIZE];

	if (!store_wal_empty(path)) {
		size_t k = strlen(errbuf);

		snprintf(errbuf + k, STORE_ERRBUF_SIZE - k, " (its write-ahead "
			 "log %s-wal holds data this user cannot read through "
			 "its index: ask its owner to checkpoint it)", path);
		return -1;
	}
	snprintf(first, sizeof(first), "%s", errbuf);
	sqlite3_close(s->db);
	s->db = NULL;
	errbuf[0] = '\0';
	if (store_db_open(path, oflags, true, &s->db) == SQLITE_OK &&
	    check_schema(s, path, version, errbuf) == 0)
		return 0;
	snprintf(errbuf, STORE_ERRBUF_SIZE, "%s", first);
	return -1;
}

int store_open(const char *path, unsigned flags, struct store **out,
	       char *errbuf)
{
	struct store *s;
	struct stat st;
	int rc, version, oflags, tries;
	bool exists, immutable;

	*out = NULL;
	errbuf[0] = '\0';
	pthread_once(&sqlite_once, sqlite_setup);	/* before create_file */
	exists = stat(path, &st) == 0;
	if (!(flags & STORE_WRITE) && !exists) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: not a regular file", path);
		return -1;
	}
	if ((flags & STORE_WRITE) && exists && access(path, W_OK) != 0) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: not writable: %s", path,
			 strerror(errno));
		return -1;
	}
	if ((flags & STORE_WRITE) && (!exists || (flags & STORE_REPLACE)) &&
	    create_file(path, exists, errbuf) < 0)
		return -1;
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "out of memory");
		return -1;
	}
	s->writable = (flags & STORE_WRITE) != 0;
	oflags = s->writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE :
		 SQLITE_OPEN_READONLY;
	oflags &= ~SQLITE_OPEN_CREATE;	/* created above, whole */
	oflags |= SQLITE_OPEN_NOMUTEX;
	/* a reader of a database no writer is at work on reads it as
	   immutable: no lock, no -shm or -wal left beside it */
	immutable = !s->writable && !(flags & STORE_FOLLOW) &&
		    store_no_writer(path);
	rc = store_db_open(path, oflags, immutable, &s->db);
	if (rc != SQLITE_OK) {
		int e = s->db ? sqlite3_system_errno(s->db) : 0;

		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: cannot %s: %s", path,
			 "open",
			 e ? strerror(e) : s->db ? sqlite3_errmsg(s->db) :
			 "out of memory");
		store_db_free(s);
		return -1;
	}
	s->path = strdup(path);
	sqlite3_busy_handler(s->db, busy_wait, s);
	sqlite3_extended_result_codes(s->db, 0);
	if (check_schema(s, path, &version, errbuf) < 0 &&
	    (s->writable || immutable || ro_again(s, path, oflags, &version,
						   errbuf) < 0))
		goto fail;
	s->version = version > 0 ? version : STORE_SCHEMA_VERSION;
	if (!s->writable) {
		if (version == 0) {
			snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: not an nfscope "
				 "database (empty)", path);
			goto fail;
		}
		*out = s;
		return 0;
	}
	if (sqlite3_db_readonly(s->db, "main") == 1) {
		snprintf(errbuf, STORE_ERRBUF_SIZE, "%s: not writable", path);
		goto fail;
	}
	/* Another writer that just created or is migrating the file may
	 * hold a lock sqlite will not wait for (it returns SQLITE_BUSY at
	 * once where waiting could deadlock): each step is idempotent, so
	 * try them again for a while. */
	for (tries = 0; (rc = setup_writer(s, path, &version, errbuf)) < 0;
	     tries++) {
		/* the message, not the code: a ROLLBACK after it resets that */
		if ((sqlite3_errcode(s->db) != SQLITE_BUSY &&
		     strstr(errbuf, sqlite3_errstr(SQLITE_BUSY)) == NULL) ||
		    tries >= SETUP_TRIES)
			goto fail;
		errbuf[0] = '\0';
		usleep(SETUP_PAUSE_US);
		if (check_schema(s, path, &version, errbuf) < 0)
			goto fail;
	}
	s->version = STORE_SCHEMA_VERSION;
	*out = s;
	return 0;
fail:
	store_db_free(s);
	return -1;
}
