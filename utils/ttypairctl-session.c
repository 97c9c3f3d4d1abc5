// SPDX-License-Identifier: GPL-2.0
/*
 * ttypairctl run and ttypairctl monitor: a throwaway pair for one command
 * (a session of /dev/ttypair-session), and a live dump of a pair's
 * traffic from the session device's monitor. See ttypairctl(8).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ttypairctl.h"
#include "../include/uapi/ttypair.h"

#define SESSION_DEV	"/dev/" TTYPAIR_SESSION_DEVICE

/* <asm-generic/termios.h>'s, which glibc's headers leave out */
#ifndef TIOCM_OUT1
#define TIOCM_OUT1	0x2000
#define TIOCM_OUT2	0x4000
#endif

/* Open the session device; exits with a message on failure */
static int session_open(int flags)
{
	int fd = open(SESSION_DEV, flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	switch (errno) {
	case ENOENT:
		die(EXIT_NOT_LOADED, "no %s: is ttypair loaded (modprobe ttypair)?",
		    SESSION_DEV);
	case EACCES:
	case EPERM:
		die(EXIT_PERM, "cannot open %s: %s (join the serial group: sudo usermod -aG dialout $USER, then log in again)",
		    SESSION_DEV, strerror(errno));
	case EDQUOT:
		die(EXIT_REFUSED, "cannot open %s: you have max_sessions_per_user session pairs already",
		    SESSION_DEV);
	case ENOSPC:
		die(EXIT_REFUSED, "cannot open %s: max_pairs pairs exist", SESSION_DEV);
	default:
		die(EXIT_REFUSED, "cannot open %s: %s", SESSION_DEV, strerror(errno));
	}
}

/* Where each pair option goes: an attribute of one end, or of both */
static int option_attr(const char *name, int *end)
{
	static const struct {
		const char *name;
		int attr;
		int end;	/* 0 A, 1 B, 2 both */
	} map[] = {
		{ "wiring", TTYPAIR_ATTR_WIRING, 2 },
		{ "wiring_a", TTYPAIR_ATTR_WIRING, 0 },
		{ "wiring_b", TTYPAIR_ATTR_WIRING, 1 },
		{ "rs485", TTYPAIR_ATTR_RS485, 2 },
		{ "rs485_a", TTYPAIR_ATTR_RS485, 0 },
		{ "rs485_b", TTYPAIR_ATTR_RS485, 1 },
		{ "baud_emulation", TTYPAIR_ATTR_BAUD_EMULATION, 0 },
		{ "strict", TTYPAIR_ATTR_STRICT, 0 },
		{ "noise_ppm", TTYPAIR_ATTR_NOISE_PPM, 0 },
		{ "noise_seed", TTYPAIR_ATTR_NOISE_SEED, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (!strcmp(map[i].name, name)) {
			*end = map[i].end;
			return map[i].attr;
		}
	}
	return -1;
}

/* Write one setting through the session; 0 or an errno */
static int session_set(int fd, const struct setting *s)
{
	struct ttypair_attr_value v;
	int end = 0, e, attr = option_attr(s->def->name, &end);

	for (e = end == 2 ? 0 : end; e <= (end == 2 ? 1 : end); e++) {
		memset(&v, 0, sizeof(v));
		v.attr = attr;
		v.end = e;
		if (strlen(s->value) >= sizeof(v.value))
			return EINVAL;
		strcpy(v.value, s->value);
		if (ioctl(fd, TTYPAIR_IOC_SET_ATTR, &v))
			return errno;
	}
	return 0;
}

/*
 * udev gives a new pair's devices the serial group a moment after they
 * appear: wait up to 5 s until this user may open both
 */
static void wait_for_access(const char *a, const char *b)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (!access(a, R_OK | W_OK) && !access(b, R_OK | W_OK))
			return;
		usleep(10000);
	}
	msg("warning: %s or %s is not accessible yet (udev's rules?)", a, b);
}

static pid_t run_child;

static void forward_signal(int sig)
{
	if (run_child > 0)
		kill(run_child, sig);
}

/**
 * run_main() - ttypairctl run [OPTION=VALUE...] -- COMMAND [ARG...]
 * @argc: the arguments from "run" on
 * @argv: argv[0] is "run"
 *
 * Return: COMMAND's exit status (128 + the signal that ended it), or
 * ttypairctl's own status when no pair could be made.
 */
int run_main(int argc, char **argv)
{
	struct ttypair_session_info info = { .size = sizeof(info) };
	char a[64], b[64], num[16];
	struct sigaction sa = { .sa_handler = forward_signal };
	struct setting *s;
	int i, dash = -1, fd, err, status;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			dash = i;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts("Usage: " PROG " run [OPTION=VALUE...] -- COMMAND [ARGUMENT...]\n"
			     "Run COMMAND with a pair of its own, removed when it exits; its\n"
			     "devices are in $TTYPAIR_A and $TTYPAIR_B. The settings are those\n"
			     "of '" PROG " create'. See ttypairctl(8).");
			return 0;
		}
	}
	if (dash < 0 || dash + 1 >= argc)
		usage_error("run: '-- COMMAND' is missing");
	s = calloc(dash, sizeof(*s));
	if (!s)
		die(EXIT_REFUSED, "out of memory");
	parse_settings(&pair_options, argv + 1, dash - 1, s);
	check_settings(s, dash - 1);

	fd = session_open(O_RDWR);
	if (ioctl(fd, TTYPAIR_IOC_INFO, &info))
		die(EXIT_REFUSED, "TTYPAIR_IOC_INFO: %s", strerror(errno));
	for (i = 0; i < dash - 1; i++) {
		err = session_set(fd, &s[i]);
		if (err) {
			close(fd);
			exit(refused_status(&s[i], err));
		}
	}
	free(s);
	snprintf(a, sizeof(a), "/dev/%s", info.device_a);
	snprintf(b, sizeof(b), "/dev/%s", info.device_b);
	snprintf(num, sizeof(num), "%u", info.index);
	wait_for_access(a, b);
	if (setenv("TTYPAIR_A", a, 1) || setenv("TTYPAIR_B", b, 1) ||
	    setenv("TTYPAIR_INDEX", num, 1))
		die(EXIT_REFUSED, "setenv: %s", strerror(errno));

	fflush(stdout);
	run_child = fork();
	if (run_child < 0)
		die(EXIT_REFUSED, "fork: %s", strerror(errno));
	if (!run_child) {
		execvp(argv[dash + 1], argv + dash + 1);
		msg("cannot run %s: %s", argv[dash + 1], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* the terminal's ^C and ^\ reach the command; TERM and HUP are passed on */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	while (waitpid(run_child, &status, 0) < 0)
		if (errno != EINTR)
			die(EXIT_REFUSED, "waitpid: %s", strerror(errno));
	close(fd);	/* the pair goes */
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* --- monitor --------------------------------------------------------------- */

enum mon_format { MON_HEX, MON_ASCII, MON_JSON };

struct mon_out {
	FILE *f;
	enum mon_format format;
	long long offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	bool bus;
	/* the burst being printed: data of one port, close together */
	int port;
	unsigned long long last_ns;
	int col;
	char ascii[17];
};

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void mon_time(struct mon_out *o, unsigned long long mono_ns)
{
	long long ns = (long long)mono_ns + o->offset_ns;
	time_t sec = ns / 1000000000LL;
	struct tm tm;
	char buf[32];

	localtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(o->f, "%s.%06lld", buf, (ns % 1000000000LL) / 1000);
}

static void mon_port(struct mon_out *o, int port)
{
	if (o->bus)
		fprintf(o->f, " %d", port);
	else
		fprintf(o->f, " %c", port ? 'B' : 'A');
}

/* End the line of data being printed */
static void mon_flush(struct mon_out *o)
{
	if (o->port < 0)
		return;
	if (o->format == MON_HEX && o->col)
		fprintf(o->f, "%*s %s", (16 - o->col) * 3, "", o->ascii);
	fputc('\n', o->f);
	o->port = -1;
	o->col = 0;
}

static void mon_data(struct mon_out *o, const struct ttypair_record *r,
		     const unsigned char *d)
{
	unsigned int i;

	/* one burst: the same sender, each record within 100 ms of the last */
	if (o->port != r->port || r->time_ns - o->last_ns > 100000000ULL)
		mon_flush(o);
	for (i = 0; i < r->len; i++) {
		if (o->port < 0 || (o->format == MON_HEX && o->col == 16) ||
		    (o->format == MON_ASCII && o->col >= 64)) {
			mon_flush(o);
			mon_time(o, r->time_ns);
			mon_port(o, r->port);
			o->port = r->port;
		}
		if (o->format == MON_HEX) {
			fprintf(o->f, " %02X", d[i]);
			o->ascii[o->col] = d[i] >= 0x20 && d[i] < 0x7f ? d[i] : '.';
			o->ascii[o->col + 1] = '\0';
			o->col++;
		} else if (d[i] >= 0x20 && d[i] < 0x7f && d[i] != '\\') {
			fprintf(o->f, "%s%c", o->col ? "" : " ", d[i]);
			o->col++;
		} else {
			fprintf(o->f, "%s\\x%02X", o->col ? "" : " ", d[i]);
			o->col += 4;
		}
	}
	o->last_ns = r->time_ns;
}

static const char *const rec_names[] = {
	[TTYPAIR_REC_DATA] = "data",
	[TTYPAIR_REC_MODEM] = "modem",
	[TTYPAIR_REC_TERMIOS] = "line",
	[TTYPAIR_REC_BREAK] = "break",
	[TTYPAIR_REC_ERROR] = "error",
	[TTYPAIR_REC_OPEN] = "open",
	[TTYPAIR_REC_CLOSE] = "close",
	[TTYPAIR_REC_HANGUP] = "hangup",
	[TTYPAIR_REC_DROPPED] = "dropped",
	[TTYPAIR_REC_REMOVED] = "removed",
};

static const char *const err_names[] = {
	"?", "frame", "parity", "overrun", "break", "noise",
};

/* The names of a record's type, error and parity, "?" for numbers unknown */
static const char *rec_name(unsigned int type)
{
	return type < ARRAY_SIZE(rec_names) && rec_names[type] ?
	       rec_names[type] : "?";
}

static const char *err_name(unsigned int err)
{
	return err_names[err < ARRAY_SIZE(err_names) ? err : 0];
}

static char parity_char(unsigned int parity)
{
	return parity < 5 ? "NEOMS"[parity] : '?';
}

/* The text of a record that is not data, without time and port */
static void mon_event_text(const struct ttypair_record *r,
			   const unsigned char *d, char *buf, size_t size)
{
	const struct ttypair_record_line *l = (const void *)d;

	switch (r->type) {
	case TTYPAIR_REC_MODEM:
		snprintf(buf, size, "modem%s%s%s%s%s",
			 r->value & TIOCM_RTS ? " RTS" : "",
			 r->value & TIOCM_DTR ? " DTR" : "",
			 r->value & TIOCM_OUT1 ? " OUT1" : "",
			 r->value & TIOCM_OUT2 ? " OUT2" : "",
			 r->value ? "" : " (none)");
		break;
	case TTYPAIR_REC_TERMIOS:
		if (r->len < sizeof(*l)) {
			snprintf(buf, size, "line ?");
			break;
		}
		snprintf(buf, size, "line %u %u%c%u%s%s%s", l->baud, l->data_bits,
			 parity_char(l->parity), l->stop_bits,
			 l->flags & TTYPAIR_LINE_F_CRTSCTS ? " crtscts" : "",
			 l->flags & TTYPAIR_LINE_F_IXOFF ? " ixoff" : "",
			 l->flags & TTYPAIR_LINE_F_CREAD ? "" : " -cread");
		break;
	case TTYPAIR_REC_BREAK:
		snprintf(buf, size, "break %s", r->value ? "on" : "off");
		break;
	case TTYPAIR_REC_ERROR:
		snprintf(buf, size, "error %s",
			 err_name(r->value));
		break;
	case TTYPAIR_REC_DROPPED:
		snprintf(buf, size, "dropped %u records", r->value);
		break;
	default:
		snprintf(buf, size, "%s", rec_name(r->type));
	}
}

static void mon_json(struct mon_out *o, const struct ttypair_record *r,
		     const unsigned char *d)
{
	const struct ttypair_record_line *l = (const void *)d;
	unsigned int i;

	fprintf(o->f, "{\"time_ns\":%llu,\"seq\":%u,\"type\":\"%s\",\"port\":",
		(unsigned long long)r->time_ns, r->seq,
		rec_name(r->type));
	if (o->bus)
		fprintf(o->f, "%u", r->port);
	else
		fprintf(o->f, "\"%c\"", r->port ? 'B' : 'A');
	switch (r->type) {
	case TTYPAIR_REC_DATA:
		fputs(",\"data\":\"", o->f);
		for (i = 0; i < r->len; i++)
			fprintf(o->f, "%02x", d[i]);
		fprintf(o->f, "\",\"discarded\":%s,\"xchar\":%s",
			r->flags & TTYPAIR_REC_F_DISCARDED ? "true" : "false",
			r->flags & TTYPAIR_REC_F_XCHAR ? "true" : "false");
		break;
	case TTYPAIR_REC_TERMIOS:
		if (r->len >= sizeof(*l))
			fprintf(o->f, ",\"baud\":%u,\"ibaud\":%u,\"bits\":%u,\"parity\":\"%c\",\"stop\":%u,\"crtscts\":%s,\"ixoff\":%s,\"cread\":%s",
				l->baud, l->ibaud, l->data_bits,
				parity_char(l->parity), l->stop_bits,
				l->flags & TTYPAIR_LINE_F_CRTSCTS ? "true" : "false",
				l->flags & TTYPAIR_LINE_F_IXOFF ? "true" : "false",
				l->flags & TTYPAIR_LINE_F_CREAD ? "true" : "false");
		break;
	case TTYPAIR_REC_ERROR:
		fprintf(o->f, ",\"error\":\"%s\"",
			err_name(r->value));
		break;
	case TTYPAIR_REC_MODEM:
		fprintf(o->f, ",\"rts\":%s,\"dtr\":%s,\"out1\":%s,\"out2\":%s",
			r->value & TIOCM_RTS ? "true" : "false",
			r->value & TIOCM_DTR ? "true" : "false",
			r->value & TIOCM_OUT1 ? "true" : "false",
			r->value & TIOCM_OUT2 ? "true" : "false");
		break;
	default:
		fprintf(o->f, ",\"value\":%u", r->value);
	}
	fputs("}\n", o->f);
}

static void mon_record(struct mon_out *o, const struct ttypair_record *r,
		       const unsigned char *d)
{
	char text[128];

	if (o->format == MON_JSON) {
		mon_json(o, r, d);
		return;
	}
	if (r->type == TTYPAIR_REC_DATA && !(r->flags & TTYPAIR_REC_F_XCHAR)) {
		mon_data(o, r, d);
		return;
	}
	mon_flush(o);
	mon_time(o, r->time_ns);
	mon_port(o, r->port);
	if (r->type == TTYPAIR_REC_DATA)
		snprintf(text, sizeof(text), "%s", d[0] == 0x13 ? "XOFF" : "XON");
	else
		mon_event_text(r, d, text, sizeof(text));
	fprintf(o->f, " -- %s\n", text);
}

static void __noreturn monitor_usage(void)
{
	usage_error("monitor PAIR|INDEX|ttyVPS<n> [--hex|--ascii|--json] [--output FILE] [--duration SECONDS]");
}

/**
 * monitor_main() - ttypairctl monitor PAIR|INDEX [options]
 * @argc: the arguments from "monitor" on
 * @argv: argv[0] is "monitor"
 *
 * Return: the exit status.
 */
int monitor_main(int argc, char **argv)
{
	struct ttypair_monitor_target t = { .kind = TTYPAIR_MONITOR_PAIR };
	struct mon_out o = { .f = stdout, .format = MON_HEX, .port = -1 };
	static unsigned char buf[1 << 16];
	const char *target = NULL, *output = NULL, *bus;
	long long end_ns = 0;
	unsigned long duration = 0;
	char *e;
	int i, fd;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--hex")) {
			o.format = MON_HEX;
		} else if (!strcmp(argv[i], "--ascii")) {
			o.format = MON_ASCII;
		} else if (!strcmp(argv[i], "--json")) {
			o.format = MON_JSON;
		} else if (!strcmp(argv[i], "--output") && i + 1 < argc) {
			output = argv[++i];
		} else if (!strcmp(argv[i], "--duration") && i + 1 < argc) {
			errno = 0;
			duration = strtoul(argv[++i], &e, 10);
			if (errno || *e || !*argv[i] || duration > 86400 * 365)
				usage_error("--duration %s: a number of seconds", argv[i]);
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts("Usage: " PROG " monitor PAIR|INDEX|ttyVPS<n> [--hex|--ascii|--json]\n"
			     "                          [--output FILE] [--duration SECONDS]\n"
			     "Show what goes over a pair (or a bus, seen from one port), live: the\n"
			     "bytes each end sends, modem lines, line settings, breaks, errors,\n"
			     "opens and closes. Needs root, or a session pair of your own. See\n"
			     "ttypairctl(8).");
			return 0;
		} else if (argv[i][0] == '-' || target) {
			monitor_usage();
		} else {
			target = argv[i];
		}
	}
	if (!target)
		monitor_usage();
	check_loaded(false);
	bus = strstr(target, TTYPAIR_NAME_BUS);
	if (bus && (bus == target || !strncmp(target, "/dev/", 5)) &&
	    valid_u64(bus + strlen(TTYPAIR_NAME_BUS), 0xffffffffULL)) {
		t.kind = TTYPAIR_MONITOR_BUS_PORT;
		t.index = strtoul(bus + strlen(TTYPAIR_NAME_BUS), NULL, 10);
		o.bus = true;
	} else {
		t.index = pair_index(target);
	}
	fd = session_open(O_RDONLY);
	if (ioctl(fd, TTYPAIR_IOC_MONITOR, &t))
		die(errno == EPERM ? EXIT_PERM : errno == ENODEV ? EXIT_NO_PAIR :
		    EXIT_REFUSED, "cannot monitor %s: %s%s", target,
		    strerror(errno), errno == EPERM ?
		    " (root may monitor any pair; others their own sessions)" : "");
	if (output) {
		o.f = fopen(output, "w");
		if (!o.f)
			die(EXIT_REFUSED, "cannot write %s: %s", output, strerror(errno));
	}
	o.offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	if (duration)
		end_ns = clock_ns(CLOCK_MONOTONIC) + duration * 1000000000LL;
	for (;;) {
		const struct ttypair_record *r;
		ssize_t got;
		size_t off;

		if (end_ns) {
			long long left = end_ns - clock_ns(CLOCK_MONOTONIC);
			struct timespec ts = {
				.tv_sec = left / 1000000000LL,
				.tv_nsec = left % 1000000000LL,
			};
			fd_set rd;

			if (left <= 0)
				break;
			FD_ZERO(&rd);
			FD_SET(fd, &rd);
			if (pselect(fd + 1, &rd, NULL, NULL, &ts, NULL) == 0)
				break;
		}
		mon_flush(&o);	/* a burst ends when nothing more is there */
		fflush(o.f);
		got = read(fd, buf, sizeof(buf));
		if (got == 0)
			break;	/* the pair was removed */
		if (got < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_REFUSED, "reading the monitor: %s", strerror(errno));
		}
		for (off = 0; off + sizeof(*r) <= (size_t)got;
		     off += (sizeof(*r) + r->len + 7) & ~(size_t)7) {
			r = (const void *)(buf + off);
			mon_record(&o, r, (const unsigned char *)(r + 1));
		}
	}
	mon_flush(&o);
	if (fflush(o.f) || ferror(o.f))
		die(EXIT_REFUSED, "cannot write the output: %s", strerror(errno));
	if (o.f != stdout)
		fclose(o.f);
	close(fd);
	return 0;
}
