// `node tool-service/src/health-check-main.ts`: the tool service's container health check. Exits 0
// only while the gateway holds its registration (the SDK's health service name
// `gateway-registration` is SERVING), asked at CALLBACK_ADDRESS with the service's own settings and
// certificates; otherwise prints the status and exits 1.
import { exitOnStartupFailure } from '@platform/tool-sdk';
import { probeRegistration } from '@platform/tool-sdk/internal';
import { loadToolServiceSettings } from './settings.ts';

const settings = exitOnStartupFailure('tool-service health check', () => loadToolServiceSettings(process.env));
const status = await probeRegistration(settings);
// Docker keeps the probe's output in the container's health log: one line saying what it saw.
if (status !== 'SERVING') process.stderr.write(`tool-service health check: ${settings.callbackAddress} gateway-registration ${status}\n`);
// The certificate provider's reload timer would keep the process alive.
process.exit(status === 'SERVING' ? 0 : 1);
