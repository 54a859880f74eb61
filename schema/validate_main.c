/* netproof-validate: the program is np_validate_cli.c's. */
#include "np_validate_cli.h"

int main(int argc, char **argv) { return np_validate_cli_main(argc, argv); }
