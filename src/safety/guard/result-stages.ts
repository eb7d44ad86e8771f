/**
 * What the model gets of a result: cleaned and cut to the size limit (terminal control sequences
 * stripped, images too big for the model's API replaced by a note), then, for a server's content
 * (not the host's own errors), the untrusted-content screen: hidden characters revealed,
 * injection flagged and handled by policy (see untrusted-content.ts).
 */
import { applyToolOutputBudget } from '../../context/tool-output-budget.js';
import { stripResultControlCharacters } from '../output-limits.js';
import { isHostMade, screenToolResult } from '../untrusted-content.js';
import { type GuardParts } from './parts.js';
import type { ResultStage } from './stages.js';
import { observed } from './activity.js';
import { definedProperties } from '../../util/defined-properties.js';

export function outputLimitStage(parts: GuardParts): ResultStage {
  return {
    name: 'output limit',
    check: async ({ result }) => {
      // One budget for text and images (src/context/tool-output-budget.ts).
      const limited = await applyToolOutputBudget(stripResultControlCharacters(result), {
        maxTextBytes: parts.maxResultBytes,
        ...definedProperties({ saveFolder: parts.toolOutputFolder }),
      });
      return {
        kind: 'rewrite',
        result: limited.result,
        facts: {
          resultBytes: limited.textBytes,
          cutBytes: limited.cutBytes,
          droppedImages: limited.droppedImages,
        },
      };
    },
  };
}

export function untrustedContentStage(parts: GuardParts): ResultStage {
  return {
    name: 'untrusted-content screen',
    check: async ({ call, location, signal, result, fromServer, cancelled, facts }) => {
      if (cancelled || facts.withheld !== undefined || isHostMade(result)) return { kind: 'continue' };
      const screen = () =>
        screenToolResult(
          result,
          {
            settings: {
              policy: parts.settings.untrustedContent?.policy ?? 'warn',
              ...definedProperties({ questions: parts.questions }),
              // The runner's one queue: a content question never overlaps an approval prompt.
              queue: parts.questionQueue,
              ...definedProperties({ onFlagged: parts.onFlagged }),
            },
            source: call.name,
            ...definedProperties({ server: location?.server }),
            signal,
          },
          fromServer,
        );
      const screened = await observed(parts.activities, { kind: 'screen' }, call, screen, (outcome) =>
        outcome.flag === undefined ? 'clean' : `flagged_${outcome.flag.action}`,
      );
      return {
        kind: 'rewrite',
        result: screened.result,
        ...(screened.flag === undefined ? {} : { facts: { flag: screened.flag } }),
      };
    },
  };
}
