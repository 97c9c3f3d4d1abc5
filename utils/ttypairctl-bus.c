// SPDX-License-Identifier: GPL-2.0
/*
 * ttypairctl bus - create, list, change and remove buses: N ports on one
 * RS-485 line (/sys/kernel/config/ttypair/buses/<name>, /dev/ttyVPS<n>).
 * See ttypairctl(8) and ttypair(4).
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ttypairctl.h"

#define MAX_PORTS	32
/* A receive queue with less room than this holds the bus's senders back */
#define ATOMIC		1024

static void bus_help(void)
{
	fputs("Usage: " PROG " bus COMMAND [ARGUMENT...]\n"
	      "\n"
	      "Manage the buses of the ttypair kernel module: N ports (2 to 32,\n"
	      "/dev/ttyVPS<n>) on one RS-485 line. What a port sends while it drives\n"
	      "the line, every other open port receives.\n"
	      "\n"
	      "Commands:\n"
	      "  create NAME --ports N [OPTION=VALUE...]\n"
	      "                              make a bus of N ports with these settings\n"
	      "                              (none is made if a setting is refused)\n"
	      "  list [--json]               every bus: settings, ports, counters\n"
	      "  set NAME OPTION=VALUE...    change settings of a bus, in order\n"
	      "  delete NAME                 remove a bus (open ports are hung up)\n"
	      "  stats NAME [--json]         the counters of every port of a bus, the room\n"
	      "                              in its receive queue, and which port holds\n"
	      "                              the senders back\n"
	      "\n"
	      "Settings (OPTION=VALUE):\n"
	      "  baud_emulation=0|1          characters take their time on the line\n"
	      "  strict=0|1                  mismatched line settings give errors\n"
	      "  overrun=0|1                 a port that cannot keep up loses characters\n"
	      "                              (marked as overruns) instead of holding the\n"
	      "                              senders back\n"
	      "  noise_ppm=N                 errors per million characters, 0 to 1000000\n"
	      "  noise_seed=N                seed of the noise, 0 to 18446744073709551615\n"
	      "  drive=auto|rts|always       when every port drives the line: auto (always;\n"
	      "                              in RS-485 mode while it sends), rts (while\n"
	      "                              RTS is asserted), always\n"
	      "  drive.K=auto|rts|always     the same for port K only\n"
	      "  rs485=RS485, rs485.K=RS485  RS-485 mode of every port, or of port K:\n"
	      "                              \"disabled\", or \"enabled\" and rts_on_send or\n"
	      "                              rts_after_send, rx_during_tx,\n"
	      "                              delay_rts_before_send=MS, delay_rts_after_send=MS\n"
	      "\n"
	      "Options:\n"
	      "  --ports N                   the number of ports (create)\n"
	      "  --json                      machine-readable output (list, stats)\n"
	      "  -h, --help                  show this help and exit\n"
	      "\n"
	      "The exit status is that of " PROG " (see '" PROG " --help'); 5 means no\n"
	      "such bus, 6 that a pair or bus of that name exists.\n", stdout);
}

/* --- settings ------------------------------------------------------------ */

static bool valid_drive(const char *s)
{
	return !strcmp(s, "auto") || !strcmp(s, "rts") || !strcmp(s, "always");
}

static const struct option_def bus_option_defs[] = {
	{ "baud_emulation",	"0 or 1",			valid_bool,	false },
	{ "strict",		"0 or 1",			valid_bool,	false },
	{ "overrun",		"0 or 1",			valid_bool,	false },
	{ "noise_ppm",		"0 to 1000000",			valid_ppm,	false },
	{ "noise_seed",		"0 to 18446744073709551615",	valid_seed,	false },
	{ "drive",		"auto, rts or always",		valid_drive,	true },
	{ "rs485",		"disabled, or enabled with rts_on_send or rts_after_send, "
				"rx_during_tx, delay_rts_before_send=MS, delay_rts_after_send=MS",
								valid_rs485,	true },
};

static const struct option_set bus_options = {
	.defs = bus_option_defs,
	.n = ARRAY_SIZE(bus_option_defs),
	.names = "options: baud_emulation, strict, overrun, noise_ppm, "
		 "noise_seed, drive, drive.K, rs485, rs485.K",
	.what = "bus",
	.max_port = MAX_PORTS - 1,
};

/* --- buses, as configfs and sysfs show them -------------------------------- */

struct port_info {
	char device[32];
	bool open;
	char drive[16];
	char rs485[128];
	unsigned long long rx, tx, discarded, undriven, injected, room, waiting;
};

struct bus_info {
	char name[NAME_MAX_LEN + 1];
	int ports;
	bool baud_emulation, strict, overrun;
	unsigned long long noise_ppm, noise_seed;
	struct port_info port[MAX_PORTS];
};

static int read_port(struct port_info *pi)
{
	const struct {
		const char *attr;
		unsigned long long *val;
	} counters[] = {
		{ "rx_bytes", &pi->rx },
		{ "tx_bytes", &pi->tx },
		{ "discarded_bytes", &pi->discarded },
		{ "undriven_bytes", &pi->undriven },
		{ "injected_errors", &pi->injected },
		{ "rx_room", &pi->room },
		{ "tx_waiting", &pi->waiting },
	};
	char p[PATH_MAX];
	unsigned long long open;
	size_t i;
	int ret;

	mkpath(p, TTY_DIR "/%s/open", pi->device);
	ret = read_u64(p, &open);
	if (ret)
		return ret;
	pi->open = open != 0;
	mkpath(p, TTY_DIR "/%s/drive", pi->device);
	ret = read_attr(p, pi->drive, sizeof(pi->drive));
	if (!ret) {
		mkpath(p, TTY_DIR "/%s/rs485", pi->device);
		ret = read_attr(p, pi->rs485, sizeof(pi->rs485));
	}
	for (i = 0; !ret && i < ARRAY_SIZE(counters); i++) {
		mkpath(p, TTY_DIR "/%s/%s", pi->device, counters[i].attr);
		ret = read_u64(p, counters[i].val);
	}
	return ret;
}

/* The bus @name, from its configfs directory and its ports' devices */
static int read_bus(const char *name, struct bus_info *bi)
{
	char p[PATH_MAX], list[MAX_PORTS * 20], *dev, *save = NULL;
	unsigned long long v;
	int ret, i;

	memset(bi, 0, sizeof(*bi));
	snprintf(bi->name, sizeof(bi->name), "%s", name);
	mkpath(p, BUS_DIR "/%s/ports", name);
	ret = read_u64(p, &v);
	if (ret)
		return ret;
	bi->ports = (int)v;
	{
		static const char *const sw[] = { "baud_emulation", "strict", "overrun" };
		bool *val[] = { &bi->baud_emulation, &bi->strict, &bi->overrun };

		for (i = 0; i < 3; i++) {
			mkpath(p, BUS_DIR "/%s/%s", name, sw[i]);
			ret = read_u64(p, &v);
			if (ret)
				return ret;
			*val[i] = v != 0;
		}
	}
	mkpath(p, BUS_DIR "/%s/noise_ppm", name);
	ret = read_u64(p, &bi->noise_ppm);
	if (!ret) {
		mkpath(p, BUS_DIR "/%s/noise_seed", name);
		ret = read_u64(p, &bi->noise_seed);
	}
	if (!ret) {
		mkpath(p, BUS_DIR "/%s/devices", name);
		ret = read_attr(p, list, sizeof(list));
	}
	if (ret)
		return ret;
	for (i = 0, dev = strtok_r(list, "\n", &save); dev && i < MAX_PORTS;
	     dev = strtok_r(NULL, "\n", &save), i++) {
		snprintf(bi->port[i].device, sizeof(bi->port[i].device), "%s", dev);
		ret = read_port(&bi->port[i]);
		if (ret)
			return ret;
	}
	if (i != bi->ports) {
		snprintf(failed_path, sizeof(failed_path), "%s", p);
		return -EINVAL;
	}
	return 0;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct bus_info *)x)->name,
		      ((const struct bus_info *)y)->name);
}

/* Every bus, by name; a bus removed while it is read is left out */
static struct bus_info *read_buses(size_t *count)
{
	struct bus_info *buses = NULL;
	size_t n = 0, cap = 0;
	char p[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	mkpath(p, BUS_DIR);
	dir = opendir(p);
	if (!dir)
		die(errno == ENOENT ? EXIT_NOT_LOADED : errno_status(errno),
		    "cannot read %s: %s%s", BUS_DIR, strerror(errno),
		    errno == ENOENT ? " (a module without buses?)" : "");
	while ((de = readdir(dir))) {
		int ret;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			buses = realloc(buses, cap * sizeof(*buses));
			if (!buses)
				die(EXIT_REFUSED, "out of memory");
		}
		ret = read_bus(de->d_name, &buses[n]);
		if (ret == -ENOENT)
			continue;	/* removed meanwhile */
		if (ret)
			die(errno_status(-ret) == EXIT_PERM ? EXIT_PERM : EXIT_REFUSED,
			    "cannot read %s: %s", failed_path, strerror(-ret));
		n++;
	}
	closedir(dir);
	if (n)
		qsort(buses, n, sizeof(*buses), by_name);
	*count = n;
	return buses;
}

static void __noreturn no_bus(const char *name)
{
	die(EXIT_NO_PAIR, "no bus named '%s' (see: " PROG " bus list)", name);
}

static void find_bus(const char *name, struct bus_info *bi)
{
	int ret;

	if (!valid_name(name))
		no_bus(name);
	ret = read_bus(name, bi);
	if (ret == -ENOENT)
		no_bus(name);
	if (ret)
		die(errno_status(-ret) == EXIT_PERM ? EXIT_PERM : EXIT_REFUSED,
		    "cannot read %s: %s", failed_path, strerror(-ret));
}

/* --- output ------------------------------------------------------------------ */

static void json_bus(const void *item)
{
	const struct bus_info *bi = item;
	int i;

	fputs("{\"name\":", stdout);
	json_string(bi->name);
	printf(",\"ports\":%d,\"baud_emulation\":%s,\"strict\":%s,\"overrun\":%s,",
	       bi->ports, bi->baud_emulation ? "true" : "false",
	       bi->strict ? "true" : "false", bi->overrun ? "true" : "false");
	printf("\"noise_ppm\":%llu,\"noise_seed\":%llu,\"devices\":[",
	       bi->noise_ppm, bi->noise_seed);
	for (i = 0; i < bi->ports; i++) {
		const struct port_info *pi = &bi->port[i];

		printf("%s{\"port\":%d,\"device\":", i ? "," : "", i);
		json_string(pi->device);
		printf(",\"open\":%s,\"drive\":", pi->open ? "true" : "false");
		json_string(pi->drive);
		fputs(",\"rs485\":", stdout);
		json_string(pi->rs485);
		printf(",\"rx_bytes\":%llu,\"tx_bytes\":%llu,\"discarded_bytes\":%llu,",
		       pi->rx, pi->tx, pi->discarded);
		printf("\"undriven_bytes\":%llu,\"injected_errors\":%llu,",
		       pi->undriven, pi->injected);
		printf("\"rx_room\":%llu,\"tx_waiting\":%s}", pi->room,
		       pi->waiting ? "true" : "false");
	}
	fputs("]}", stdout);
}

static void port_cells(struct table *t, int col, int k, const struct port_info *pi)
{
	cell(t, col++, "%d", k);
	cell(t, col++, "%s", pi->device);
	cell(t, col++, "%s", pi->open ? "yes" : "no");
	cell(t, col++, "%s", pi->drive);
	cell(t, col++, "%llu", pi->rx);
	cell(t, col++, "%llu", pi->tx);
	cell(t, col++, "%llu", pi->discarded);
	cell(t, col++, "%llu", pi->undriven);
	cell(t, col, "%llu", pi->injected);
}

/* --- commands ------------------------------------------------------------------ */

static int bus_list(bool json)
{
	static const char *const heads[] = {
		"BUS", "PORTS", "BAUD", "STRICT", "OVERRUN", "PORT", "DEVICE",
		"OPEN", "DRIVE", "RX", "TX", "DISCARDED", "UNDRIVEN", "INJECTED"
	};
	static const bool right[] = {
		false, true, false, false, false, true, false,
		false, false, true, true, true, true, true
	};
	struct table t = { .cols = 14, .heads = heads, .right = right };
	struct bus_info *buses;
	size_t n, i;
	int k;

	check_loaded(true);
	buses = read_buses(&n);
	if (json) {
		json_list("buses", buses, n, sizeof(*buses), json_bus);
		free(buses);
		return 0;
	}
	if (!n) {
		puts("no buses (make one with: " PROG " bus create NAME --ports N)");
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct bus_info *bi = &buses[i];

		table_row(&t);
		cell(&t, 0, "%s", bi->name);
		cell(&t, 1, "%d", bi->ports);
		cell(&t, 2, "%s", bi->baud_emulation ? "on" : "off");
		cell(&t, 3, "%s", bi->strict ? "on" : "off");
		cell(&t, 4, "%s", bi->overrun ? "on" : "off");
		for (k = 0; k < bi->ports; k++) {
			if (k)
				table_row(&t);
			port_cells(&t, 5, k, &bi->port[k]);
		}
	}
	table_print(&t);
	free(buses);
	return 0;
}

static int bus_stats(const char *name, bool json)
{
	static const char *const heads[] = {
		"PORT", "DEVICE", "OPEN", "DRIVE", "RX", "TX", "DISCARDED",
		"UNDRIVEN", "INJECTED", "RX_ROOM", "WAITING"
	};
	static const bool right[] = {
		true, false, false, false, true, true, true, true, true, true, false
	};
	struct table t = { .cols = 11, .heads = heads, .right = right };
	struct bus_info bi;
	bool waits = false;
	int k;

	check_loaded(true);
	find_bus(name, &bi);
	if (json) {
		json_bus(&bi);
		putchar('\n');
		return 0;
	}
	if (!bi.ports) {
		printf("bus '%s': no ports yet\n", bi.name);
		return 0;
	}
	printf("bus '%s': %d ports, /dev/%s to /dev/%s\n", bi.name, bi.ports,
	       bi.port[0].device, bi.port[bi.ports - 1].device);
	for (k = 0; k < bi.ports; k++) {
		table_row(&t);
		port_cells(&t, 0, k, &bi.port[k]);
		cell(&t, 9, "%llu", bi.port[k].room);
		cell(&t, 10, "%s", bi.port[k].waiting ? "yes" : "no");
		waits |= bi.port[k].open && bi.port[k].waiting;
	}
	table_print(&t);
	if (waits && !bi.overrun)
		for (k = 0; k < bi.ports; k++)
			if (bi.port[k].open && bi.port[k].room < ATOMIC)
				printf("port %d (/dev/%s) holds the bus back: its reader has left %llu bytes of room\n",
				       k, bi.port[k].device, bi.port[k].room);
	return 0;
}

/* Write the settings in order; the index of the first refused, or @n */
static int bus_apply(const struct bus_info *bi, const struct setting *s,
		     int n, int *err)
{
	char p[PATH_MAX];
	int i, k;

	*err = 0;
	for (i = 0; i < n && !*err; i++) {
		if (!s[i].def->per_port) {
			mkpath(p, BUS_DIR "/%s/%s", bi->name, s[i].def->name);
			*err = -write_attr(p, s[i].value);
			continue;
		}
		if (s[i].port >= bi->ports) {
			msg("'%s' refused: bus '%s' has ports 0 to %d", s[i].arg,
			    bi->name, bi->ports - 1);
			*err = ERANGE;
			return i;
		}
		for (k = 0; k < bi->ports && !*err; k++) {
			if (s[i].port >= 0 && s[i].port != k)
				continue;
			mkpath(p, TTY_DIR "/%s/%s", bi->port[k].device, s[i].def->name);
			*err = -write_attr(p, s[i].value);
		}
	}
	return *err ? i - 1 : n;
}

static int bus_create(const char *name, const char *ports, char **args,
		      int nargs)
{
	struct setting *s = calloc(nargs + 1, sizeof(*s));
	char p[PATH_MAX], limit[32];
	struct bus_info bi;
	int i, k, err, ret = 0;

	if (!s)
		die(EXIT_REFUSED, "out of memory");
	parse_settings(&bus_options, args, nargs, s);
	if (!valid_u64(ports, MAX_PORTS) || atoi(ports) < 2)
		die(EXIT_REFUSED, "--ports %s refused: a bus has 2 to %d ports", ports,
		    MAX_PORTS);
	check_loaded(true);
	check_new_name(name);
	check_settings(s, nargs);
	for (i = 0; i < nargs; i++)
		if (s[i].port >= atoi(ports))
			die(EXIT_REFUSED, "'%s' refused: a bus of %s ports has ports 0 to %d",
			    s[i].arg, ports, atoi(ports) - 1);

	mkpath(p, BUS_DIR "/%s", name);
	if (mkdir(p, 0755)) {
		err = errno;
		if (err == ENOENT)
			die(EXIT_NOT_LOADED, "no %s: this ttypair has no buses", BUS_DIR);
		create_failed(name, err);
	}
	mkpath(p, BUS_DIR "/%s/ports", name);
	err = -write_attr(p, ports);
	if (err == ENOSPC) {
		mkpath(p, MOD_DIR "/parameters/max_bus_ports");
		if (read_attr(p, limit, sizeof(limit)))
			snprintf(limit, sizeof(limit), "?");
		msg("cannot give '%s' %s ports: %s (max_bus_ports=%s, or no %s consecutive lines free)",
		    name, ports, strerror(err), limit, ports);
		ret = EXIT_REFUSED;
	} else if (err) {
		msg("cannot give '%s' %s ports: %s", name, ports, strerror(err));
		ret = errno_status(err) == EXIT_PERM ? EXIT_PERM : EXIT_REFUSED;
	}
	if (!ret) {
		err = -read_bus(name, &bi);
		if (err) {
			msg("cannot read %s: %s", failed_path, strerror(err));
			ret = EXIT_REFUSED;
		}
	}
	if (!ret) {
		i = bus_apply(&bi, s, nargs, &err);
		if (i < nargs)
			ret = err == ERANGE ? EXIT_REFUSED : refused_status(&s[i], err);
	}
	if (ret) {
		mkpath(p, BUS_DIR "/%s", name);
		undo_create(&bus_options, p, name, "bus delete");
		free(s);
		return ret;
	}
	printf("%s:", name);
	for (k = 0; k < bi.ports; k++)
		printf(" /dev/%s", bi.port[k].device);
	putchar('\n');
	free(s);
	return 0;
}

static int bus_set(const char *name, char **args, int nargs)
{
	struct setting *s = calloc(nargs, sizeof(*s));
	struct bus_info bi;
	int i, err;

	if (!s)
		die(EXIT_REFUSED, "out of memory");
	parse_settings(&bus_options, args, nargs, s);
	check_loaded(true);
	check_settings(s, nargs);
	find_bus(name, &bi);
	i = bus_apply(&bi, s, nargs, &err);
	if (i < nargs) {
		if (err == ENOENT)	/* removed meanwhile */
			no_bus(name);
		err = err == ERANGE ? EXIT_REFUSED : refused_status(&s[i], err);
		applied_before(s, i);
		free(s);
		return err;
	}
	free(s);
	return 0;
}

static int bus_delete(const char *name)
{
	char p[PATH_MAX];

	check_loaded(true);
	if (!valid_name(name))
		no_bus(name);
	mkpath(p, BUS_DIR "/%s", name);
	if (!remove_dir(p, name))
		no_bus(name);
	return 0;
}

/**
 * bus_main() - ttypairctl bus COMMAND ...
 * @argc: the arguments from "bus" on
 * @argv: argv[0] is "bus"
 *
 * Return: the exit status.
 */
int bus_main(int argc, char **argv)
{
	char **pos = calloc(argc + 1, sizeof(*pos));
	const char *ports = NULL, *cmd;
	bool json = false;
	int i, npos = 0, ret;

	if (!pos)
		die(EXIT_REFUSED, "out of memory");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			bus_help();
			free(pos);
			return 0;
		}
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--ports")) {
			if (++i == argc)
				usage_error("--ports: the number of ports is missing");
			ports = argv[i];
		} else if (!strncmp(argv[i], "--ports=", 8)) {
			ports = argv[i] + 8;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage_error("unknown option '%s'", argv[i]);
		} else {
			pos[npos++] = argv[i];
		}
	}
	if (!npos)
		usage_error("bus: no command given (create, list, set, delete, stats)");
	cmd = pos[0];
	if (json && strcmp(cmd, "list") && strcmp(cmd, "stats"))
		usage_error("--json goes with bus list and bus stats only");
	if (ports && strcmp(cmd, "create"))
		usage_error("--ports goes with bus create only");

	if (!strcmp(cmd, "list")) {
		if (npos > 1)
			usage_error("bus list takes no argument ('%s')", pos[1]);
		ret = bus_list(json);
	} else if (!strcmp(cmd, "create")) {
		if (npos < 2)
			usage_error("bus create: the name of the bus is missing");
		if (!ports)
			usage_error("bus create: --ports N is missing");
		ret = bus_create(pos[1], ports, pos + 2, npos - 2);
	} else if (!strcmp(cmd, "delete")) {
		if (npos != 2)
			usage_error(npos < 2 ? "bus delete: the name of the bus is missing" :
				    "bus delete takes one name");
		ret = bus_delete(pos[1]);
	} else if (!strcmp(cmd, "set")) {
		if (npos < 2)
			usage_error("bus set: the name of the bus is missing");
		if (npos < 3)
			usage_error("bus set: no OPTION=VALUE given");
		ret = bus_set(pos[1], pos + 2, npos - 2);
	} else if (!strcmp(cmd, "stats")) {
		if (npos != 2)
			usage_error(npos < 2 ? "bus stats: the name of the bus is missing" :
				    "bus stats takes one name");
		ret = bus_stats(pos[1], json);
	} else {
		usage_error("unknown bus command '%s'", cmd);
	}
	free(pos);
	return ret;
}
