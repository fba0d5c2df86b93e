// Where a device belongs, asked of the platform's device API with the caller's own credential, so
// a device the caller may not view is as absent for them here as it is there.
import type { HttpClient } from '@platform/tool-sdk';
import { discardBody, endpoint, readPlatformAnswer } from '@platform/tool-sdk/internal';
import { z } from 'zod';
import type { Credential } from './caller-guard.ts';
import { WebhookApiError } from './errors.ts';

const deviceSchema = z.object({ id: z.number().int(), companyId: z.number().int(), gatewayId: z.string() });

export type Device = z.output<typeof deviceSchema>;
export type DeviceDirectory = (deviceId: number, credential: Credential) => Promise<Device | undefined>;

export function createDeviceDirectory(httpClient: HttpClient, apiBaseUrl: string): DeviceDirectory {
  return async (deviceId, credential) => {
    const response = await httpClient.get(endpoint(apiBaseUrl, `api/devices/${deviceId}`), { authorization: `${credential.scheme} ${credential.token}` });
    // The caller's credential was refused since it was checked (revoked, expired): theirs to renew, not a platform fault.
    if (response.status === 401) {
      await discardBody(response);
      throw new WebhookApiError('UNAUTHENTICATED', 'Authorization: the token is invalid or expired', { field: 'Authorization' });
    }
    return readPlatformAnswer(response, { what: 'GET /api/devices/{id}', schema: deviceSchema, absent: [403, 404] });
  };
}
