import type { JudgeQuestion } from '../../../../core/sdk/contracts/judge.js';

/** A grounded evaluation row: a question, the quote that grounds it, and the expected answer. */
export interface LabRow {
  question: string;
  quote: string;
  expected_answer: string;
}

/**
 * The three questions of the synthetic-data lab. The first two gate a row; the cue-word
 * question is reported only.
 */
export const LAB_QUESTIONS: Record<'reader_question' | 'answer_supported' | 'answer_cued_in_question', JudgeQuestion> = {
  reader_question: {
    type: 'noul',
    instructions: 'Would a real reader of the source ask this question, in these words, without having seen the quote?',
  },
  answer_supported: {
    type: 'noul',
    instructions: 'Does the quoted evidence support the expected answer to the question?',
  },
  answer_cued_in_question: {
    type: 'noul',
    instructions: 'Does the question copy distinctive cue words from the quote, so that the answer can be found by matching words instead of understanding?',
  },
};

export const GATING_QUESTIONS = ['reader_question', 'answer_supported'] as const;
