/* netproof-archive: the program is np_archive_cli.c's. */
#include "np_archive_cli.h"

int main(int argc, char **argv) { return np_archive_cli_main(argc, argv); }
