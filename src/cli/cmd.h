/* cmd.h — the marrow subcommands. Each takes argc/argv starting at the
 * command's own name (argv[0] == "info"), prints its own --help, and returns
 * an exit code from core/error.h (MR_EXIT_*). */
#ifndef MR_CLI_CMD_H
#define MR_CLI_CMD_H

typedef struct mr_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *args;     /* one-line synopsis of the arguments */
    const char *summary;  /* what it does, for `marrow --help` */
} mr_command;

int mr_cmd_info(int argc, char **argv);
int mr_cmd_pose(int argc, char **argv);
int mr_cmd_convert(int argc, char **argv);
int mr_cmd_bench(int argc, char **argv);
int mr_cmd_run(int argc, char **argv);
int mr_cmd_plot(int argc, char **argv);
int mr_cmd_view(int argc, char **argv);
int mr_cmd_test(int argc, char **argv);

#endif
