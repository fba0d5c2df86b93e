// A gRPC server's failure to bind, told in one line that names the address and the variable to change.
import { describe, expect, it } from 'vitest';
import { bindFailure } from './bind-failure.ts';

describe('bindFailure', () => {
  it('names the address and the variable that moves it when the port is taken, keeping the cause', () => {
    const bind = new Error('No address added out of total 1 resolved errors: [listen EADDRINUSE: address already in use 127.0.0.1:50051]');
    const failure = bindFailure(bind, '127.0.0.1:50051', 'CALLBACK_ADDRESS');
    expect(failure.message).toBe('127.0.0.1:50051 is already in use; set CALLBACK_ADDRESS to another host:port');
    expect(failure.cause).toBe(bind);
  });

  it('says why for a forbidden port and a foreign address, and passes anything else on in one line', () => {
    expect(bindFailure(new Error('listen EACCES: permission denied 0.0.0.0:80'), '0.0.0.0:80', 'CALLBACK_ADDRESS').message).toBe(
      '0.0.0.0:80 may not be used by this user; set CALLBACK_ADDRESS to another host:port',
    );
    expect(bindFailure(new Error('listen EADDRNOTAVAIL 10.9.9.9:1'), '10.9.9.9:1', 'CALLBACK_ADDRESS').message).toContain('is not an address of this machine');
    expect(bindFailure('odd\nthing', 'h:1', 'REGISTRY_ADDRESS').message).toBe(
      'h:1 cannot be listened on (odd thing); set REGISTRY_ADDRESS to another host:port',
    );
  });
});
