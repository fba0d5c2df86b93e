// How deep parsed JSON nests, measured without recursion, so input nested to any depth is measured
// without overflowing the stack: the arguments a tool is called with, the schemas a service announces.

/** Whether the objects and arrays in `value` nest more than `maxLevels` deep (the outermost is level 1). */
export function nestsDeeperThan(value: unknown, maxLevels: number): boolean {
  // Two stacks side by side rather than a pair made per object: this runs on every request body.
  const items: unknown[] = [value];
  const levels: number[] = [1];
  for (let item = items.pop(), level = levels.pop(); level !== undefined; item = items.pop(), level = levels.pop()) {
    if (item === null || typeof item !== 'object') continue;
    if (level > maxLevels) return true;
    for (const child of Object.values(item)) {
      if (child !== null && typeof child === 'object') {
        items.push(child);
        levels.push(level + 1);
      }
    }
  }
  return false;
}
