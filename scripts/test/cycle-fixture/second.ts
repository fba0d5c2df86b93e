// The other half of the deliberate import cycle (see first.ts).
import { first } from './first.ts';

export const second = (): number => first() + 1;
