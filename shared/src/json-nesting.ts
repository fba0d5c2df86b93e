// How deep parsed JSON nests, measured without recursion, so input nested to any depth is measured
// without overflowing the stack: the arguments a tool is called with, the schemas a service announces.

/** Whether the objects and arrays in `value` nest more than `maxLevels` deep (the outermost is level 1). */
export function nestsDeeperThan(value: unknown, maxLevels: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, level] = next;
    if (item === null || typeof item !== 'object') continue;
    if (level > maxLevels) return true;
    for (const child of Object.values(item)) if (child !== null && typeof child === 'object') pending.push([child, level + 1]);
  }
  return false;
}
