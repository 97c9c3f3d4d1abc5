/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ttypairctl - what its commands share: messages and exit status, the
 * module's files, value checks as the module makes them, output tables.
 */
#ifndef TTYPAIRCTL_H
#define TTYPAIRCTL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define PROG		"ttypairctl"
#define CFG_DIR		"/sys/kernel/config/ttypair"
#define BUS_DIR		CFG_DIR "/buses"
#define TTY_DIR		"/sys/class/tty"
#define MOD_DIR		"/sys/module/ttypair"
#define NAME_MAX_LEN	32

#define __printf(a, b)	__attribute__((__format__(__printf__, a, b)))
#define __noreturn	__attribute__((__noreturn__))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exit status (documented in --help and in ttypairctl(8)) */
enum {
	EXIT_REFUSED	= 1,	/* a value or name refused, or no room */
	EXIT_USAGE	= 2,	/* bad command line */
	EXIT_NOT_LOADED	= 3,	/* module not loaded, configfs not mounted */
	EXIT_PERM	= 4,	/* permission denied */
	EXIT_NO_PAIR	= 5,	/* no such pair or bus */
	EXIT_EXISTS	= 6,	/* a pair or bus of that name already exists */
};

/* messages: "ttypairctl: ..." on stderr */
void __printf(1, 2) msg(const char *fmt, ...);
void __noreturn __printf(2, 3) die(int status, const char *fmt, ...);
void __noreturn __printf(1, 2) usage_error(const char *fmt, ...);
int errno_status(int err);

/* files: paths under TTYPAIR_SYSFS_ROOT; 0 or -errno */
void __printf(2, 3) mkpath(char buf[PATH_MAX], const char *fmt, ...);
extern char failed_path[PATH_MAX];
int read_attr(const char *p, char *buf, size_t size);
int read_u64(const char *p, unsigned long long *val);
int write_attr(const char *p, const char *val);
bool is_dir(const char *p);
void check_loaded(bool configfs);

/* values, checked as the module checks them */
bool is_digit(char c);
bool valid_name(const char *s);
bool valid_u64(const char *s, unsigned long long max);
bool valid_bool(const char *s);
bool valid_ppm(const char *s);
bool valid_seed(const char *s);
bool valid_rs485(const char *s);

/* settings: OPTION=VALUE, or OPTION.K=VALUE for port K of a bus */
struct option_def {
	const char *name;
	const char *hint;			/* the values there are */
	bool (*valid)(const char *value);
	bool per_port;				/* a bus port's: all, or ".K" */
};

struct option_set {
	const struct option_def *defs;
	size_t n;
	const char *names;	/* "options: ..." for a usage error */
	const char *what;	/* "pair" or "bus" */
	int max_port;		/* the highest K of OPTION.K */
};

struct setting {
	const struct option_def *def;
	const char *arg;	/* as given */
	const char *value;
	int port;		/* K of OPTION.K; -1 for all */
};

void parse_settings(const struct option_set *os, char **args, int n,
		    struct setting *out);
void check_settings(const struct setting *s, int n);
void refused_msg(const struct setting *s, int err);
int refused_status(const struct setting *s, int err);
void applied_before(const struct setting *s, int i);

/* the configfs directory of a pair or bus */
void check_new_name(const char *name);
void __noreturn create_failed(const char *name, int err);
void undo_create(const struct option_set *os, const char *p, const char *name,
		 const char *del);
bool remove_dir(const char *p, const char *name);

/* output */
void json_string(const char *s);
void json_list(const char *key, const void *items, size_t n, size_t size,
	       void (*one)(const void *item));

/* A text table: columns padded to their widest cell, numbers to the right */
#define MAX_COLS	16
#define CELL		64

struct table {
	int cols;
	const char *const *heads;
	const bool *right;
	size_t rows, cap;
	char (*cells)[MAX_COLS][CELL];
};

void __printf(3, 4) cell(struct table *t, int col, const char *fmt, ...);
void table_row(struct table *t);
void table_print(struct table *t);

/* ttypairctl.c: the settings of a pair; the pair an argument names */
extern const struct option_set pair_options;
unsigned int pair_index(const char *arg);

/* ttypairctl-bus.c: "ttypairctl bus ..." (argv[0] is "bus") */
int bus_main(int argc, char **argv);
/* ttypairctl-session.c: "ttypairctl run ..." and "ttypairctl monitor ..." */
int run_main(int argc, char **argv);
int monitor_main(int argc, char **argv);

#endif
