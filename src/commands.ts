import { creditCommand } from './credit/cli.js';
import { faceEvalCommand } from './face/cli.js';
import { livenessEvalCommand } from './face/liveness/cli.js';
import type { Command } from './platform/cli.js';
import { readerFeaturesCommand } from './reader/cli.js';
import { asrModelsCommand } from './speech/asr/cli.js';
import { modelsListCommand, modelsRemoveCommand } from './speech/cli.js';
import { ttsModelsAddCommand } from './speech/tts/cli.js';

/**
 * Service commands of the CLI, by their leading words. `saola credit train
 * alpha --outcomes x.csv` runs the `credit` command with
 * `['train', 'alpha', '--outcomes', 'x.csv']`.
 */
export const serviceCommands: Record<string, Command> = {
  credit: creditCommand,
  'eval face': faceEvalCommand,
  'eval liveness': livenessEvalCommand,
  'models add asr': asrModelsCommand,
  'models add tts': ttsModelsAddCommand,
  'models list': modelsListCommand,
  'models remove': modelsRemoveCommand,
  'reader features': readerFeaturesCommand,
};
