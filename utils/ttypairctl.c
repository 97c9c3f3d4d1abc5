// SPDX-License-Identifier: GPL-2.0
/*
 * ttypairctl - list, create, change and remove the pairs of connected
 * virtual serial ports of the ttypair kernel module.
 *
 * Everything goes through the module's file interfaces: configfs
 * (/sys/kernel/config/ttypair/<name>, named pairs) and sysfs
 * (/sys/class/tty/ttyVPA<n>/ and ttyVPB<n>/, every pair). See ttypairctl(8)
 * and ttypair(4). TTYPAIR_SYSFS_ROOT, when set, is put before every /sys
 * path, so that the tool can be tested against a fake tree.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "ttypairctl.h"
#include "../include/uapi/ttypair.h"

#ifndef TTYPAIR_VERSION
#define TTYPAIR_VERSION "unknown"
#endif

static const char *sysfs_root = "";

/* --- messages ------------------------------------------------------------ */

static void __printf(1, 0)
vmsg(const char *fmt, va_list ap)
{
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(status);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputs("Try '" PROG " --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

static void print_help(void)
{
	fputs("Usage: " PROG " COMMAND [ARGUMENT...]\n"
	      "\n"
	      "Manage the pairs of connected virtual serial ports of the ttypair kernel\n"
	      "module (/dev/ttyVPA<n> <-> /dev/ttyVPB<n>), and its buses.\n"
	      "\n"
	      "Commands:\n"
	      "  list [--json]               every pair: devices, settings, counters\n"
	      "  create NAME [OPTION=VALUE...]\n"
	      "                              make a named pair with these settings\n"
	      "                              (none is made if a setting is refused)\n"
	      "  delete NAME                 remove a named pair (open ends are hung up)\n"
	      "  set PAIR OPTION=VALUE...    change settings of a pair, in order\n"
	      "  stats PAIR [--json]         the counters of both ends of a pair\n"
	      "  bus COMMAND ...             buses of ports on one RS-485 line:\n"
	      "                              see '" PROG " bus --help'\n"
	      "  run [OPTION=VALUE...] -- COMMAND [ARGUMENT...]\n"
	      "                              run COMMAND with a pair of its own (in\n"
	      "                              $TTYPAIR_A and $TTYPAIR_B), removed when it\n"
	      "                              exits; no root needed (group dialout)\n"
	      "  monitor PAIR [--hex|--ascii|--json] [--output FILE] [--duration S]\n"
	      "                              show a pair's traffic live, timestamped\n"
	      "\n"
	      "PAIR is a pair's name, or one of its devices (ttyVPA0, /dev/ttyVPB0) for\n"
	      "the pairs made at load time by the pairs= module parameter.\n"
	      "\n"
	      "Settings (OPTION=VALUE):\n"
	      "  wiring_a=WIRING, wiring_b=WIRING, wiring=WIRING (both ends)\n"
	      "                              input=[!]source items, e.g. \"dcd=on ri=!open\";\n"
	      "                              inputs cts dsr dcd ri; sources rts dtr out1\n"
	      "                              out2 open on off\n"
	      "  rs485_a=RS485, rs485_b=RS485, rs485=RS485 (both ends)\n"
	      "                              RS-485 mode: \"disabled\", or \"enabled\" and\n"
	      "                              rts_on_send or rts_after_send,\n"
	      "                              delay_rts_before_send=MS, delay_rts_after_send=MS\n"
	      "  baud_emulation=0|1          bytes leave at each end's line rate\n"
	      "  strict=0|1                  mismatched line settings give errors\n"
	      "  noise_ppm=N                 errors per million characters, 0 to 1000000\n"
	      "  noise_seed=N                seed of the noise, 0 to 18446744073709551615\n"
	      "\n"
	      "Options:\n"
	      "  --json                      machine-readable output (list, stats,\n"
	      "                              monitor: a record a line)\n"
	      "  --hex, --ascii              monitor's data: hexadecimal and text (the\n"
	      "                              default), or text with escapes\n"
	      "  --output FILE               monitor: write to FILE\n"
	      "  --duration SECONDS          monitor: stop after that long\n"
	      "  -h, --help                  show this help and exit\n"
	      "  --version                   show the version and exit\n"
	      "\n"
	      "Exit status:\n"
	      "  0  success\n"
	      "  1  a value or name was refused (EINVAL), or max_pairs pairs exist (ENOSPC)\n"
	      "  2  usage error: unknown command or option, missing argument\n"
	      "  3  ttypair is not loaded, or configfs is not mounted\n"
	      "  4  permission denied (changes need root; configfs is root-only)\n"
	      "  5  no such pair (or bus)\n"
	      "  6  a pair or bus of that name already exists\n"
	      "\n"
	      "Environment:\n"
	      "  TTYPAIR_SYSFS_ROOT          put before every /sys path (for testing)\n"
	      "\n"
	      "See ttypairctl(8) and ttypair(4).\n", stdout);
}

/* The exit status for an error of a system call */
int errno_status(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return EXIT_PERM;
	case ENOENT:
		return EXIT_NO_PAIR;
	case EEXIST:
		return EXIT_EXISTS;
	default:
		return EXIT_REFUSED;
	}
}

/* --- files --------------------------------------------------------------- */

/* mkpath() - the path TTYPAIR_SYSFS_ROOT + what @fmt says, into @buf */
void mkpath(char buf[PATH_MAX], const char *fmt, ...)
{
	char rest[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rest, sizeof(rest), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rest))
		die(EXIT_REFUSED, "path too long");
	n = snprintf(buf, PATH_MAX, "%s%s", sysfs_root, rest);
	if (n < 0 || n >= PATH_MAX)
		die(EXIT_REFUSED, "path too long: %s%s", sysfs_root, rest);
}

/* The path of the last attribute that could not be read */
char failed_path[PATH_MAX];

/* read_attr() - the text of a file, without its trailing newline */
int read_attr(const char *p, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd, err = 0;

	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
out:
	if (err)
		snprintf(failed_path, sizeof(failed_path), "%s", p);
	return -err;
}

int read_u64(const char *p, unsigned long long *val)
{
	char buf[64], *end;
	int ret;

	ret = read_attr(p, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || buf[0] == '-') {
		snprintf(failed_path, sizeof(failed_path), "%s", p);
		return -EINVAL;
	}
	return 0;
}

/* write_attr() - one write(2) of @val, as the kernel wants it */
int write_attr(const char *p, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = write(fd, val, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	if (close(fd) && !err && errno != EINTR)
		err = errno;
	return -err;
}

bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/*
 * check_loaded() - exit with status 3 unless the module is loaded (and,
 * with @configfs, its configfs directory is there)
 */
void check_loaded(bool configfs)
{
	char p[PATH_MAX];

	mkpath(p, MOD_DIR);
	if (!is_dir(p))
		die(EXIT_NOT_LOADED,
		    "ttypair is not loaded (load it as root: modprobe ttypair)");
	if (!configfs)
		return;
	mkpath(p, CFG_DIR);
	if (is_dir(p))
		return;
	if (errno == EACCES)
		die(EXIT_PERM, "cannot reach " CFG_DIR ": %s (run as root)",
		    strerror(errno));
	die(EXIT_NOT_LOADED,
	    "configfs is not mounted at /sys/kernel/config, so " CFG_DIR
	    " is missing (mount it as root: mount -t configfs none /sys/kernel/config)");
}

/* --- names and values ------------------------------------------------------ */

bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A configfs pair name: 1-32 of [A-Za-z0-9._-], not starting with . or - */
bool valid_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n < 1 || n > NAME_MAX_LEN || s[0] == '.' || s[0] == '-')
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !is_digit(c) && c != '.' && c != '_' && c != '-')
			return false;
	}
	return true;
}

/* The pair index of "ttyVPA<n>", "ttyVPB<n>" or "/dev/ttyVP..", or -1 */
static long device_index(const char *s)
{
	const char *d;
	long n = 0;

	if (!strncmp(s, "/dev/", 5))
		s += 5;
	if (strncmp(s, "ttyVPA", 6) && strncmp(s, "ttyVPB", 6))
		return -1;
	d = s + 6;
	if (!*d || (d[0] == '0' && d[1]))
		return -1;
	for (; *d; d++) {
		if (!is_digit(*d) || n > 100000)
			return -1;
		n = n * 10 + (*d - '0');
	}
	return n;
}

/* A decimal number as the kernel's kstrtou64() takes it, up to @max */
bool valid_u64(const char *s, unsigned long long max)
{
	unsigned long long v = 0;
	int digits = 0;

	if (*s == '+')
		s++;
	for (; is_digit(*s); s++, digits++) {
		if (v > (ULLONG_MAX - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (*s == '\n')	/* one trailing newline, as the kernel allows */
		s++;
	return digits && !*s && v <= max;
}

bool valid_bool(const char *s)
{
	return valid_u64(s, 1);
}

bool valid_ppm(const char *s)
{
	return valid_u64(s, 1000000);
}

bool valid_seed(const char *s)
{
	return valid_u64(s, ULLONG_MAX);
}

static bool word_in(const char *w, size_t len, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == len && !strncmp(*list, w, len))
			return true;
	return false;
}

/* A wiring text, by the rules of the module's parser (ttypair(4)) */
static bool valid_wiring(const char *s)
{
	static const char *const inputs[] = { "cts", "dsr", "dcd", "ri", NULL };
	static const char *const sources[] = {
		"rts", "dtr", "out1", "out2", "open", "on", "off", NULL
	};
	static const char *const seps = " ,\t\n";
	unsigned int named = 0;
	int items = 0;

	for (;;) {
		const char *eq, *src;
		size_t len, slen;
		unsigned int bit;
		int in;

		s += strspn(s, seps);
		if (!*s)
			break;
		len = strcspn(s, seps);
		eq = memchr(s, '=', len);
		if (!eq)
			return false;
		for (in = 0; inputs[in]; in++)
			if (strlen(inputs[in]) == (size_t)(eq - s) &&
			    !strncmp(inputs[in], s, eq - s))
				break;
		if (!inputs[in])
			return false;
		bit = 1u << in;
		if (named & bit)
			return false;
		named |= bit;
		src = eq + 1;
		slen = s + len - src;
		if (slen && *src == '!') {
			src++;
			slen--;
		}
		if (!word_in(src, slen, sources))
			return false;
		items++;
		s += len;
	}
	return items > 0;
}

/* An RS-485 text, by the rules of the module's parser (ttypair(4)) */
bool valid_rs485(const char *s)
{
	static const char *const words[] = {
		"enabled", "rts_on_send", "rts_after_send", "rx_during_tx",
		"terminate_bus", NULL
	};
	static const char *const delays[] = {
		"delay_rts_before_send=", "delay_rts_after_send=", NULL
	};
	static const char *const seps = " \t\n";
	bool enabled = false;

	if (!strcmp(s, "disabled") || !strcmp(s, "0"))
		return true;
	for (;;) {
		size_t len, k;
		bool ok = false;

		s += strspn(s, seps);
		if (!*s)
			break;
		len = strcspn(s, seps);
		if (word_in(s, len, words)) {
			ok = true;
			enabled |= len == 7 && !strncmp(s, "enabled", 7);
		}
		for (k = 0; !ok && delays[k]; k++) {
			size_t d = strlen(delays[k]), i;

			if (len <= d || strncmp(s, delays[k], d) || len - d > 10)
				continue;
			for (i = d; i < len && s[i] >= '0' && s[i] <= '9'; i++)
				;
			ok = i == len && strtoull(s + d, NULL, 10) <= 0xffffffffULL;
		}
		if (!ok)
			return false;
		s += len;
	}
	return enabled;
}

/* The settings a pair has, as options of create and set */
#define WIRING_HINT "input=[!]source items; inputs cts, dsr, dcd, ri; " \
		    "sources rts, dtr, out1, out2, open, on, off"
#define RS485_HINT "disabled, or enabled with rts_on_send or rts_after_send, " \
		   "delay_rts_before_send=MS, delay_rts_after_send=MS"

static const struct option_def option_defs[] = {
	{ "wiring",		WIRING_HINT,			valid_wiring,	false },
	{ "wiring_a",		WIRING_HINT,			valid_wiring,	false },
	{ "wiring_b",		WIRING_HINT,			valid_wiring,	false },
	{ "rs485",		RS485_HINT,			valid_rs485,	false },
	{ "rs485_a",		RS485_HINT,			valid_rs485,	false },
	{ "rs485_b",		RS485_HINT,			valid_rs485,	false },
	{ "baud_emulation",	"0 or 1",			valid_bool,	false },
	{ "strict",		"0 or 1",			valid_bool,	false },
	{ "noise_ppm",		"0 to 1000000",			valid_ppm,	false },
	{ "noise_seed",		"0 to 18446744073709551615",	valid_seed,	false },
};

const struct option_set pair_options = {
	.defs = option_defs,
	.n = ARRAY_SIZE(option_defs),
	.names = "options: wiring, wiring_a, wiring_b, rs485, rs485_a, "
		 "rs485_b, baud_emulation, strict, noise_ppm, noise_seed",
	.what = "pair",
};

/* OPTION.K: K, a port number up to @max; a usage error otherwise */
static int setting_port(const struct option_set *os, const char *arg,
			const struct option_def *def, const char *dot,
			const char *eq)
{
	size_t d = eq - dot - 1;
	char num[8];

	if (!def->per_port || !d || d >= sizeof(num))
		usage_error("'%s': %s", arg, def->per_port ?
			    "a port number goes after the '.'" :
			    os->max_port ? "a setting of the whole bus takes no port number" :
			    "this setting takes no port number");
	memcpy(num, dot + 1, d);
	num[d] = '\0';
	if (!valid_u64(num, os->max_port))
		usage_error("'%s': the port number is 0 to %d", arg, os->max_port);
	return atoi(num);
}

/**
 * parse_settings() - OPTION=VALUE arguments into @out (as many as @args)
 * @os: the options there are
 * @args: the arguments
 * @n: how many
 * @out: the settings
 *
 * OPTION.K=VALUE names port K for an option that is per port. An unknown
 * option, a misplaced port number or an argument without '=' is a usage
 * error, found before anything is written.
 */
void parse_settings(const struct option_set *os, char **args, int n,
		    struct setting *out)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *eq = strchr(args[i], '='), *dot;
		size_t k, len;

		if (!eq)
			usage_error("'%s' is not OPTION=VALUE", args[i]);
		dot = memchr(args[i], '.', eq - args[i]);
		len = (dot ? dot : eq) - args[i];
		for (k = 0; k < os->n; k++)
			if (strlen(os->defs[k].name) == len &&
			    !strncmp(os->defs[k].name, args[i], len))
				break;
		if (k == os->n)
			usage_error("unknown option '%.*s' in '%s' (%s)",
				    (int)len, args[i], args[i], os->names);
		out[i].def = &os->defs[k];
		out[i].arg = args[i];
		out[i].value = eq + 1;
		out[i].port = dot ? setting_port(os, args[i], out[i].def, dot, eq) : -1;
	}
}

/* refused_msg() - why the setting @s was refused with @err */
void refused_msg(const struct setting *s, int err)
{
	if (err == EINVAL)
		msg("'%s' refused: %s (%s)", s->arg, strerror(err), s->def->hint);
	else if (err == EACCES || err == EPERM)
		msg("'%s' refused: %s (run as root)", s->arg, strerror(err));
	else
		msg("'%s' refused: %s", s->arg, strerror(err));
}

/* refused_status() - refused_msg(), and the exit status for @err */
int refused_status(const struct setting *s, int err)
{
	int ret = errno_status(err);

	refused_msg(s, err);
	/* not "no such pair" or "exists": the pair or bus was there */
	return ret == EXIT_NO_PAIR || ret == EXIT_EXISTS ? EXIT_REFUSED : ret;
}

/* applied_before() - say that the @i settings before a refused one stay */
void applied_before(const struct setting *s, int i)
{
	if (i == 1)
		msg("'%s', given before it, stays applied", s[0].arg);
	else if (i > 1)
		msg("the %d settings given before it stay applied", i);
}

/* check_settings() - refuse (status 1) a value the module would refuse */
void check_settings(const struct setting *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!s[i].def->valid(s[i].value)) {
			refused_msg(&s[i], EINVAL);
			exit(EXIT_REFUSED);
		}
	}
}

/* check_new_name() - refuse (status 1) a name configfs would refuse */
void check_new_name(const char *name)
{
	if (!valid_name(name))
		die(EXIT_REFUSED,
		    "'%s' refused: %s (a name is 1 to 32 letters, digits, '.', '_' or '-', not starting with '.' or '-')",
		    name, strerror(EINVAL));
}

/* create_failed() - exit for @err of mkdir() of the pair or bus @name */
void create_failed(const char *name, int err)
{
	switch (err) {
	case EEXIST:
		die(EXIT_EXISTS, "a pair or bus named '%s' already exists", name);
	case EACCES:
	case EPERM:
		die(EXIT_PERM,
		    "cannot create '%s': %s (run as root: configfs is root-only)",
		    name, strerror(err));
	case EINVAL:
		die(EXIT_REFUSED, "'%s' refused: %s", name, strerror(err));
	default:
		die(errno_status(err), "cannot create '%s': %s", name,
		    strerror(err));
	}
}

/*
 * remove_dir() - rmdir @p, the directory of the pair or bus @name; false if
 * there is none, exits on any other error
 */
bool remove_dir(const char *p, const char *name)
{
	if (!rmdir(p))
		return true;
	switch (errno) {
	case ENOENT:
		return false;
	case EACCES:
	case EPERM:
		die(EXIT_PERM,
		    "cannot delete '%s': %s (run as root: configfs is root-only)",
		    name, strerror(errno));
	default:
		die(errno_status(errno), "cannot delete '%s': %s", name,
		    strerror(errno));
	}
}

/*
 * undo_create() - remove @p, the half-made pair or bus (@os->what) @name,
 * whose settings were refused; @del is the command that deletes it
 */
void undo_create(const struct option_set *os, const char *p, const char *name,
		 const char *del)
{
	if (rmdir(p))
		msg("could not remove the half-made %s '%s': %s (try: %s %s %s)",
		    os->what, name, strerror(errno), PROG, del, name);
	else
		msg("%s '%s' not created", os->what, name);
}

/* Where the settings of a pair are written */
struct target {
	bool configfs;		/* CFG_DIR/<name>/, else the sysfs devices */
	char name[NAME_MAX_LEN + 1];
	unsigned int index;
};

static void target_file(const struct target *t, const char *opt,
			char p[PATH_MAX])
{
	if (t->configfs)
		mkpath(p, CFG_DIR "/%s/%s", t->name, opt);
	else if (!strcmp(opt, "wiring_a"))
		mkpath(p, TTY_DIR "/ttyVPA%u/wiring", t->index);
	else if (!strcmp(opt, "wiring_b"))
		mkpath(p, TTY_DIR "/ttyVPB%u/wiring", t->index);
	else if (!strcmp(opt, "rs485_a"))
		mkpath(p, TTY_DIR "/ttyVPA%u/rs485", t->index);
	else if (!strcmp(opt, "rs485_b"))
		mkpath(p, TTY_DIR "/ttyVPB%u/rs485", t->index);
	else
		mkpath(p, TTY_DIR "/ttyVPA%u/%s", t->index, opt);
}

/*
 * apply_settings() - write @n settings in order; returns the index of the
 * first one refused (its error in @err), or @n
 */
static int apply_settings(const struct target *t, const struct setting *s,
			  int n, int *err)
{
	char p[PATH_MAX];
	int i;

	for (i = 0; i < n; i++) {
		const char *both = s[i].def->name;

		if (!strcmp(both, "wiring") || !strcmp(both, "rs485")) {
			char opt[16];

			snprintf(opt, sizeof(opt), "%s_a", both);
			target_file(t, opt, p);
			*err = -write_attr(p, s[i].value);
			if (!*err) {
				snprintf(opt, sizeof(opt), "%s_b", both);
				target_file(t, opt, p);
				*err = -write_attr(p, s[i].value);
			}
		} else {
			target_file(t, s[i].def->name, p);
			*err = -write_attr(p, s[i].value);
		}
		if (*err)
			return i;
	}
	*err = 0;
	return n;
}

/* Whether CFG_DIR/@name exists (a named pair, configfs mounted) */
static bool cfg_pair_exists(const char *name)
{
	char p[PATH_MAX];

	if (!valid_name(name))
		return false;
	mkpath(p, CFG_DIR "/%s", name);
	return is_dir(p);
}

/* --- pairs, as sysfs shows them --------------------------------------------- */

struct end_info {
	char device[32];
	bool open;
	char wiring[128];
	char rs485[128];
	unsigned long long rx, tx, discarded, injected;
};

struct pair_info {
	unsigned int index;
	char name[NAME_MAX_LEN + 1];	/* empty: a static pair or a session */
	bool session;			/* made by /dev/ttypair-session */
	bool baud_emulation, strict;
	unsigned long long noise_ppm, noise_seed;
	struct end_info a, b;
};

static int read_end(unsigned int index, char end, struct end_info *e)
{
	/* the counters of an end, in the order `list` and `stats` show them */
	const struct {
		const char *attr;
		unsigned long long *val;
	} counters[] = {
		{ "rx_bytes", &e->rx },
		{ "tx_bytes", &e->tx },
		{ "discarded_bytes", &e->discarded },
		{ "injected_errors", &e->injected },
	};
	char p[PATH_MAX];
	unsigned long long open;
	size_t i;
	int ret;

	snprintf(e->device, sizeof(e->device), "ttyVP%c%u", end, index);
	mkpath(p, TTY_DIR "/%s/open", e->device);
	ret = read_u64(p, &open);
	if (ret)
		return ret;
	e->open = open != 0;
	mkpath(p, TTY_DIR "/%s/wiring", e->device);
	ret = read_attr(p, e->wiring, sizeof(e->wiring));
	if (!ret) {
		mkpath(p, TTY_DIR "/%s/rs485", e->device);
		ret = read_attr(p, e->rs485, sizeof(e->rs485));
	}
	for (i = 0; !ret && i < sizeof(counters) / sizeof(counters[0]); i++) {
		mkpath(p, TTY_DIR "/%s/%s", e->device, counters[i].attr);
		ret = read_u64(p, counters[i].val);
	}
	return ret;
}

static int read_pair(unsigned int index, struct pair_info *pi)
{
	char p[PATH_MAX], kind[16];
	unsigned long long v;
	int ret;

	memset(pi, 0, sizeof(*pi));
	pi->index = index;
	mkpath(p, TTY_DIR "/ttyVPA%u/pair", index);
	ret = read_attr(p, pi->name, sizeof(pi->name));
	if (ret)
		return ret;
	mkpath(p, TTY_DIR "/ttyVPA%u/kind", index);
	ret = read_attr(p, kind, sizeof(kind));
	if (ret)
		return ret;
	pi->session = !strcmp(kind, "session");
	mkpath(p, TTY_DIR "/ttyVPA%u/baud_emulation", index);
	ret = read_u64(p, &v);
	if (ret)
		return ret;
	pi->baud_emulation = v != 0;
	mkpath(p, TTY_DIR "/ttyVPA%u/strict", index);
	ret = read_u64(p, &v);
	if (ret)
		return ret;
	pi->strict = v != 0;
	mkpath(p, TTY_DIR "/ttyVPA%u/noise_ppm", index);
	ret = read_u64(p, &pi->noise_ppm);
	if (ret)
		return ret;
	mkpath(p, TTY_DIR "/ttyVPA%u/noise_seed", index);
	ret = read_u64(p, &pi->noise_seed);
	if (ret)
		return ret;
	ret = read_end(index, 'A', &pi->a);
	if (ret)
		return ret;
	return read_end(index, 'B', &pi->b);
}

static int by_index(const void *x, const void *y)
{
	const struct pair_info *a = x, *b = y;

	return a->index < b->index ? -1 : a->index > b->index;
}

/*
 * read_pairs() - every pair (found as /sys/class/tty/ttyVPA<n>), sorted by
 * index; a pair removed while it is read is left out
 */
static struct pair_info *read_pairs(size_t *count)
{
	struct pair_info *pairs = NULL;
	size_t n = 0, cap = 0;
	char p[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	mkpath(p, TTY_DIR);
	dir = opendir(p);
	if (!dir) {
		if (errno == ENOENT) {
			*count = 0;
			return NULL;
		}
		die(errno_status(errno), "cannot read %s: %s", TTY_DIR,
		    strerror(errno));
	}
	while ((de = readdir(dir))) {
		long index = device_index(de->d_name);
		int ret;

		if (index < 0 || de->d_name[5] != 'A')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			pairs = realloc(pairs, cap * sizeof(*pairs));
			if (!pairs)
				die(EXIT_REFUSED, "out of memory");
		}
		ret = read_pair(index, &pairs[n]);
		if (ret == -ENOENT) {
			mkpath(p, TTY_DIR "/%s", de->d_name);
			if (!is_dir(p))
				continue;	/* removed meanwhile */
		}
		if (ret)
			die(errno_status(-ret) == EXIT_PERM ? EXIT_PERM : EXIT_REFUSED,
			    "cannot read %s: %s", failed_path, strerror(-ret));
		n++;
	}
	closedir(dir);
	if (n)
		qsort(pairs, n, sizeof(*pairs), by_index);
	*count = n;
	return pairs;
}

/*
 * find_pair() - the pair named @arg, or else the pair of the device @arg
 * (ttyVPA<n>, /dev/ttyVPB<n>...); false if there is none
 */
static bool find_pair(const char *arg, struct pair_info *out)
{
	struct pair_info *pairs;
	long index = device_index(arg);
	size_t n, i;
	bool found = false;

	pairs = read_pairs(&n);
	for (i = 0; i < n && !found; i++) {
		if (pairs[i].name[0] && !strcmp(pairs[i].name, arg)) {
			*out = pairs[i];
			found = true;
		}
	}
	for (i = 0; i < n && !found && index >= 0; i++) {
		if (pairs[i].index == (unsigned long)index) {
			*out = pairs[i];
			found = true;
		}
	}
	free(pairs);
	return found;
}

static void __noreturn no_pair(const char *arg)
{
	die(EXIT_NO_PAIR, "no pair named '%s' (see: " PROG " list)", arg);
}

/**
 * pair_index() - the index of the pair a name, device or number names
 * @arg: a pair's name, one of its devices, or its index
 *
 * Exits with EXIT_NO_PAIR if there is none.
 *
 * Return: the index.
 */
unsigned int pair_index(const char *arg)
{
	struct pair_info pi;

	if (find_pair(arg, &pi))
		return pi.index;
	if (valid_u64(arg, 0xffffffffULL))
		return strtoul(arg, NULL, 10);
	no_pair(arg);
}

/* --- output ----------------------------------------------------------------- */

void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_end(const struct end_info *e)
{
	fputs("{\"device\":", stdout);
	json_string(e->device);
	printf(",\"open\":%s,\"wiring\":", e->open ? "true" : "false");
	json_string(e->wiring);
	fputs(",\"rs485\":", stdout);
	json_string(e->rs485);
	printf(",\"rx_bytes\":%llu,\"tx_bytes\":%llu,", e->rx, e->tx);
	printf("\"discarded_bytes\":%llu,\"injected_errors\":%llu}",
	       e->discarded, e->injected);
}

static void json_pair(const void *item)
{
	const struct pair_info *pi = item;

	printf("{\"index\":%u,\"name\":", pi->index);
	if (pi->name[0])
		json_string(pi->name);
	else
		fputs("null", stdout);
	printf(",\"static\":%s,\"session\":%s,\"a\":",
	       pi->name[0] || pi->session ? "false" : "true",
	       pi->session ? "true" : "false");
	json_end(&pi->a);
	fputs(",\"b\":", stdout);
	json_end(&pi->b);
	printf(",\"baud_emulation\":%s,\"strict\":%s,",
	       pi->baud_emulation ? "true" : "false",
	       pi->strict ? "true" : "false");
	printf("\"noise_ppm\":%llu,\"noise_seed\":%llu}", pi->noise_ppm,
	       pi->noise_seed);
}

/**
 * json_list() - {"@key":[...]}, one item of @items a line
 * @key: the name of the list
 * @items: @n items of @size bytes
 * @n: how many
 * @size: the size of one
 * @one: prints one item as a JSON object
 */
void json_list(const char *key, const void *items, size_t n, size_t size,
	       void (*one)(const void *item))
{
	size_t i;

	printf("{\"%s\":[", key);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", stdout);
		one((const char *)items + i * size);
	}
	fputs(n ? "\n]}\n" : "]}\n", stdout);
}

void cell(struct table *t, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->cells[t->rows - 1][col], CELL, fmt, ap);
	va_end(ap);
}

void table_row(struct table *t)
{
	if (t->rows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = realloc(t->cells, t->cap * sizeof(*t->cells));
		if (!t->cells)
			die(EXIT_REFUSED, "out of memory");
	}
	memset(t->cells[t->rows], 0, sizeof(*t->cells));
	t->rows++;
}

void table_print(struct table *t)
{
	int width[MAX_COLS], c;
	size_t r;

	for (c = 0; c < t->cols; c++) {
		width[c] = strlen(t->heads[c]);
		for (r = 0; r < t->rows; r++)
			if ((int)strlen(t->cells[r][c]) > width[c])
				width[c] = strlen(t->cells[r][c]);
	}
	for (r = 0; r <= t->rows; r++) {
		char line[MAX_COLS * (CELL + 1) + 1];
		size_t len = 0;

		for (c = 0; c < t->cols; c++) {
			const char *s = r ? t->cells[r - 1][c] : t->heads[c];
			bool last = c == t->cols - 1;

			len += snprintf(line + len, sizeof(line) - len,
					t->right[c] ? "%s%*s" : "%s%-*s",
					c ? " " : "", last && !t->right[c] ? 0 : width[c], s);
		}
		while (len && line[len - 1] == ' ')
			line[--len] = '\0';
		puts(line);
	}
	free(t->cells);
}

static void end_cells(struct table *t, int col, char end,
		      const struct end_info *e, bool wiring)
{
	cell(t, col++, "%c", end);
	cell(t, col++, "%s", e->device);
	cell(t, col++, "%s", e->open ? "yes" : "no");
	cell(t, col++, "%llu", e->rx);
	cell(t, col++, "%llu", e->tx);
	cell(t, col++, "%llu", e->discarded);
	cell(t, col++, "%llu", e->injected);
	if (wiring)
		cell(t, col, "%s", e->wiring);
}

/* --- commands ----------------------------------------------------------------- */

static int cmd_list(bool json)
{
	static const char *const heads[] = {
		"PAIR", "NAME", "BAUD", "STRICT", "NOISE_PPM", "END", "DEVICE",
		"OPEN", "RX", "TX", "DISCARDED", "INJECTED", "WIRING"
	};
	static const bool right[] = {
		true, false, false, false, true, false, false,
		false, true, true, true, true, false
	};
	struct table t = { .cols = 13, .heads = heads, .right = right };
	struct pair_info *pairs;
	size_t n, i;

	check_loaded(false);
	pairs = read_pairs(&n);
	if (json) {
		json_list("pairs", pairs, n, sizeof(*pairs), json_pair);
		free(pairs);
		return 0;
	}
	if (!n) {
		puts("no pairs (make one with: " PROG " create NAME)");
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct pair_info *pi = &pairs[i];

		table_row(&t);
		cell(&t, 0, "%u", pi->index);
		cell(&t, 1, "%s", pi->name[0] ? pi->name :
		     pi->session ? "(session)" : "-");
		cell(&t, 2, "%s", pi->baud_emulation ? "on" : "off");
		cell(&t, 3, "%s", pi->strict ? "on" : "off");
		cell(&t, 4, "%llu", pi->noise_ppm);
		end_cells(&t, 5, 'a', &pi->a, true);
		table_row(&t);
		end_cells(&t, 5, 'b', &pi->b, true);
	}
	table_print(&t);
	free(pairs);
	return 0;
}

static int cmd_stats(const char *arg, bool json)
{
	static const char *const heads[] = {
		"END", "DEVICE", "OPEN", "RX", "TX", "DISCARDED", "INJECTED"
	};
	static const bool right[] = {
		false, false, false, true, true, true, true
	};
	struct table t = { .cols = 7, .heads = heads, .right = right };
	struct pair_info pi;

	check_loaded(false);
	if (!find_pair(arg, &pi))
		no_pair(arg);
	if (json) {
		json_pair(&pi);
		putchar('\n');
		return 0;
	}
	if (pi.name[0])
		printf("pair %u '%s': /dev/%s <-> /dev/%s\n", pi.index,
		       pi.name, pi.a.device, pi.b.device);
	else
		printf("pair %u (static): /dev/%s <-> /dev/%s\n", pi.index,
		       pi.a.device, pi.b.device);
	table_row(&t);
	end_cells(&t, 0, 'a', &pi.a, false);
	table_row(&t);
	end_cells(&t, 0, 'b', &pi.b, false);
	table_print(&t);
	return 0;
}

static int cmd_create(const char *name, char **args, int nargs)
{
	struct setting *s = calloc(nargs + 1, sizeof(*s));
	struct target t = { .configfs = true };
	char p[PATH_MAX], a[64], b[64], limit[32];
	int i, err, ret;

	if (!s)
		die(EXIT_REFUSED, "out of memory");
	parse_settings(&pair_options, args, nargs, s);
	check_loaded(true);
	check_new_name(name);
	check_settings(s, nargs);

	mkpath(p, CFG_DIR "/%s", name);
	if (mkdir(p, 0755)) {
		err = errno;
		if (err == ENOSPC) {
			mkpath(p, MOD_DIR "/parameters/max_pairs");
			if (read_attr(p, limit, sizeof(limit)))
				snprintf(limit, sizeof(limit), "?");
			die(EXIT_REFUSED,
			    "cannot create '%s': %s (max_pairs=%s pairs exist)",
			    name, strerror(err), limit);
		}
		create_failed(name, err);
	}

	snprintf(t.name, sizeof(t.name), "%s", name);
	i = apply_settings(&t, s, nargs, &err);
	ret = 0;
	if (i < nargs) {
		ret = refused_status(&s[i], err);
	} else {
		mkpath(p, CFG_DIR "/%s/device_a", name);
		err = -read_attr(p, a, sizeof(a));
		if (!err) {
			mkpath(p, CFG_DIR "/%s/device_b", name);
			err = -read_attr(p, b, sizeof(b));
		}
		if (err) {
			msg("cannot read %s: %s", failed_path, strerror(err));
			ret = EXIT_REFUSED;
		}
	}
	if (ret) {
		mkpath(p, CFG_DIR "/%s", name);
		undo_create(&pair_options, p, name, "delete");
		free(s);
		return ret;
	}
	printf("%s: /dev/%s <-> /dev/%s\n", name, a, b);
	free(s);
	return 0;
}

/* delete_named() - rmdir a pair's directory; false if there is none */
static bool delete_named(const char *name)
{
	char p[PATH_MAX];

	mkpath(p, CFG_DIR "/%s", name);
	return remove_dir(p, name);
}

static int cmd_delete(const char *name)
{
	struct pair_info pi;

	check_loaded(true);
	if (valid_name(name) && delete_named(name))
		return 0;
	/* a device of the pair, rather than its name */
	if (device_index(name) < 0 || !find_pair(name, &pi))
		no_pair(name);
	if (pi.session)
		die(EXIT_REFUSED,
		    "%s belongs to pair %u, a session of /dev/" TTYPAIR_SESSION_DEVICE ": it goes when its owner closes it",
		    name, pi.index);
	if (!pi.name[0])
		die(EXIT_REFUSED,
		    "%s belongs to pair %u, made by the pairs= module parameter: it goes only with the module (modprobe -r ttypair)",
		    name, pi.index);
	if (!valid_name(pi.name) || !delete_named(pi.name))
		no_pair(name);
	return 0;
}

static int cmd_set(const char *arg, char **args, int nargs)
{
	struct setting *s = calloc(nargs, sizeof(*s));
	struct target t = { .configfs = false };
	struct pair_info pi;
	int i, err;

	if (!s)
		die(EXIT_REFUSED, "out of memory");
	parse_settings(&pair_options, args, nargs, s);
	check_loaded(false);
	check_settings(s, nargs);

	if (cfg_pair_exists(arg)) {
		t.configfs = true;
		snprintf(t.name, sizeof(t.name), "%s", arg);
	} else if (find_pair(arg, &pi)) {
		t.index = pi.index;
		/* a named pair: through configfs, if it is mounted */
		if (pi.name[0] && cfg_pair_exists(pi.name)) {
			t.configfs = true;
			snprintf(t.name, sizeof(t.name), "%s", pi.name);
		}
	} else {
		no_pair(arg);
	}

	i = apply_settings(&t, s, nargs, &err);
	if (i < nargs) {
		if (err == ENOENT)	/* removed meanwhile */
			no_pair(arg);
		err = refused_status(&s[i], err);
		applied_before(s, i);
		free(s);
		return err;
	}
	free(s);
	return 0;
}

int main(int argc, char **argv)
{
	char **pos = calloc(argc + 1, sizeof(*pos));
	const char *env = getenv("TTYPAIR_SYSFS_ROOT");
	bool json = false;
	int i, npos = 0, ret;
	const char *cmd;

	if (!pos)
		die(EXIT_REFUSED, "out of memory");
	if (env)
		sysfs_root = env;
	if (argc > 1 && (!strcmp(argv[1], "bus") || !strcmp(argv[1], "run") ||
			 !strcmp(argv[1], "monitor"))) {
		free(pos);
		ret = !strcmp(argv[1], "bus") ? bus_main(argc - 1, argv + 1) :
		      !strcmp(argv[1], "run") ? run_main(argc - 1, argv + 1) :
		      monitor_main(argc - 1, argv + 1);
		if (fflush(stdout) || ferror(stdout))
			die(EXIT_REFUSED, "cannot write the output: %s", strerror(errno));
		return ret;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_help();
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			puts(PROG " " TTYPAIR_VERSION);
			return 0;
		}
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-' && argv[i][1])
			usage_error("unknown option '%s'", argv[i]);
		else
			pos[npos++] = argv[i];
	}
	if (!npos)
		usage_error("no command given");
	cmd = pos[0];
	if (json && strcmp(cmd, "list") && strcmp(cmd, "stats"))
		usage_error("--json goes with list and stats only");

	if (!strcmp(cmd, "help")) {
		print_help();
		ret = 0;
	} else if (!strcmp(cmd, "list")) {
		if (npos > 1)
			usage_error("list takes no argument ('%s')", pos[1]);
		ret = cmd_list(json);
	} else if (!strcmp(cmd, "create")) {
		if (npos < 2)
			usage_error("create: the name of the pair is missing");
		ret = cmd_create(pos[1], pos + 2, npos - 2);
	} else if (!strcmp(cmd, "delete")) {
		if (npos != 2)
			usage_error(npos < 2 ? "delete: the name of the pair is missing" :
				    "delete takes one name");
		ret = cmd_delete(pos[1]);
	} else if (!strcmp(cmd, "set")) {
		if (npos < 2)
			usage_error("set: the name of the pair is missing");
		if (npos < 3)
			usage_error("set: no OPTION=VALUE given");
		ret = cmd_set(pos[1], pos + 2, npos - 2);
	} else if (!strcmp(cmd, "stats")) {
		if (npos != 2)
			usage_error(npos < 2 ? "stats: the name of the pair is missing" :
				    "stats takes one name");
		ret = cmd_stats(pos[1], json);
	} else {
		usage_error("unknown command '%s'", cmd);
	}
	free(pos);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_REFUSED, "cannot write the output: %s", strerror(errno));
	return ret;
}
