/* serve.c - `nfscope serve`: a headless run (headless.h) feeding the
 * metrics endpoint, and a database with -w; see serve.h. */
#include "ui/serve/serve.h"
#include "ui/serve/headless.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Wait for SIGINT/SIGTERM, serving the final figures. */
static void serve_linger(void)
{
	struct timespec ts = { 0, 100000000 };

	while (!run_stop) {
		nanosleep(&ts, NULL);
		run_check_hup("serve");
	}
}

int ui_serve_main(int argc, char **argv)
{
	static struct ui_hl_opts o;
	struct ui_hl r;
	struct run_config c;
	const char *state;
	int rc;

	if ((rc = ui_hl_parse(&r, &o, true, argc, argv)) >= 0 ||
	    (rc = ui_hl_check(&r, &o)) >= 0)
		return rc;
	rc = 1;
	if (ui_hl_open(&r, &o, &c) < 0 || ui_hl_go(&r) < 0)
		goto out;
	state = run_state(r.run);
	if (!r.quiet)
		fprintf(stderr, "nfscope serve: input %s: %" PRIu64 " packets, "
			"%" PRIu64 " operations; serving the final figures "
			"until SIGINT or SIGTERM\n", state, r.packets, r.ops);
	serve_linger();
	if (o.out && !r.quiet)
		ui_hl_said(&r);
	rc = strcmp(state, "cut") == 0 ? UI_EXIT_CUT : 0;
out:
	ui_hl_free(&r, &o);
	return rc;
}
