/* record.c - `nfscope record`: a headless run (ui/serve/headless.h) into
 * a database; see record.h and doc/store.md. */
#include "ui/record/record.h"
#include "ui/serve/headless.h"

#include <string.h>

int ui_record_main(int argc, char **argv)
{
	static struct ui_hl_opts o;
	struct ui_hl r;
	struct run_config c;
	struct an_find_config dc;	/* an_find_new(NULL)'s */
	const char *state;
	int rc;

	if ((rc = ui_hl_parse(&r, &o, false, argc, argv)) >= 0)
		return rc;
	if (o.out == NULL)
		return ui_usage_error(r.who, "no output: give -w OUT.db");
	if ((rc = ui_hl_check(&r, &o)) >= 0)
		return rc;
	rc = 1;
	if (ui_hl_open(&r, &o, &c) < 0 || ui_hl_go(&r) < 0)
		goto out;
	state = run_state(r.run);
	an_find_config_default(&dc);
	if (r.ev && ui_pcap_write(r.ev, &o.po, &c, &(struct ui_pcap_end){
			.find = r.find, .slow_ms = dc.slow_ms,
			.frames = r.packets }, r.quiet) < 0)
		goto out;
	if (!r.quiet)
		ui_hl_said(&r);
	rc = strcmp(state, "cut") == 0 ? UI_EXIT_CUT : 0;
out:
	ui_hl_free(&r, &o);
	return rc;
}
