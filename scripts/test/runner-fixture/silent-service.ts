// A service that takes connections on PORT and never answers: to the stack runner, never ready.
import { createServer } from 'node:http';

createServer(() => undefined).listen(Number(process.env.PORT), '127.0.0.1');
