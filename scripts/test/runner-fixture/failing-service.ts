// A service that cannot start: one line, exit code 1, as every service's start-up failure is.
process.stderr.write('failing-service cannot start: SOME_SETTING must be a number\n');
process.exit(1);
