// Which clients each person approved on the consent page: a client a person approved is
// authorized for them without asking again; any other is asked about first. In memory, as the
// sign-in sessions are: after a restart people sign in, and approve, again.
export interface ClientApprovals {
  has(accountId: string, clientId: string): boolean;
  add(accountId: string, clientId: string): void;
}

export function createClientApprovals(): ClientApprovals {
  const approved = new Map<string, Set<string>>();
  return {
    has: (accountId, clientId) => approved.get(accountId)?.has(clientId) === true,
    add(accountId, clientId) {
      let clients = approved.get(accountId);
      if (!clients) approved.set(accountId, (clients = new Set()));
      clients.add(clientId);
    },
  };
}
