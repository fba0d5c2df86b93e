// Half of a deliberate import cycle: the gates test proves the lint configuration refuses it.
import { second } from './second.ts';

export const first = (): number => second() + 1;
