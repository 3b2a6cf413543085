import { batonCommand, type FollowUp } from '@baton/core/engine';
import type { ChildConfig } from '../protocol.ts';

/**
 * How an operator action's refusal names the next step under `baton dev` (its `followUp`): the
 * inspector's buttons and routes for what the inspector does — purge a dead letter, redrive it,
 * with force too — rather than `baton dead-letters …`, which the embedded backend refuses (its
 * data is its app process's alone). Any other command is named as the CLI runs it on a
 * `baton dev`, with `--local`, which needs `--backend local-aws`.
 *
 * @example
 * inspectorFollowUp('embedded')`dead-letters purge ${'cart/bob'} ${'m-1'}`;
 * // 'the purge button on that dead letter in the inspector, or POST /_baton/purge on its port'
 */
export function inspectorFollowUp(backend: ChildConfig['backend']): FollowUp {
  return (command, ...operands) => {
    // The command's own words, each operand a placeholder: `dead-letters purge {} {}`.
    const shape = command.join('{}');
    switch (shape) {
      case 'dead-letters purge {} {}':
        return 'the purge button on that dead letter in the inspector, or POST /_baton/purge on its port';
      case 'dead-letters redrive {} {}':
        return 'the redrive button on that dead letter in the inspector, or POST /_baton/redrive on its port';
      case 'dead-letters redrive {} {} --force':
        return 'the redrive button on that dead letter in the inspector, clicked again when it offers to redrive anyway, or POST /_baton/redrive on its port with "force": true';
      case 'actors get {}':
        return `${operands[0]}'s row in the inspector's actors (its history)`;
    }
    if (shape.startsWith('dead-letters list') || shape.startsWith('dead-letters show')) {
      return "the inspector's dead letters";
    }
    const cli = `${batonCommand(command, ...operands)} --local <baton dev's address>`;
    return backend === 'local-aws'
      ? cli
      : `${cli}, with baton dev --backend local-aws (the embedded backend's data is its app process's alone)`;
  };
}
