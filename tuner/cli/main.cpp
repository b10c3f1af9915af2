#include "cli/cli.h"

int main(int argc, char** argv) { return tune::cli::main(argc, argv); }
