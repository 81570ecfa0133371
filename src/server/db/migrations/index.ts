import type { Migration } from 'kysely';
import type { Dialect } from '../database';
import { createProfiles } from './2026_11_22_0900_create_profiles';
import { createAccounts } from './2026_11_22_1000_create_accounts';
import { createBlocksReportsLikes } from './2026_11_22_1100_create_blocks_reports_likes';
import { addProfileRank } from './2026_11_22_1200_add_profile_rank';
import { createSwipes } from './2026_11_22_1300_create_swipes';
import { createChat } from './2026_11_23_1000_create_chat';
import { createPush } from './2026_11_23_1100_create_push';
import { createPayments } from './2026_11_23_1200_create_payments';
import { addAccessIndexes } from './2026_11_23_2000_add_access_indexes';
import { createLanderFunnel } from './2026_11_23_2000_create_lander_funnel';
import { addSearchOrderIndexes } from './2026_11_24_0100_add_search_order_indexes';
import { createStaffConsole } from './2026_11_24_0400_create_staff_console';
import { createJobs } from './2026_11_25_0100_create_jobs';
import { addAgeSearchIndex } from './2026_11_25_0200_add_age_search_index';
import { tuneProfilesAutovacuum } from './2026_11_26_0100_tune_profiles_autovacuum';
import { addPaymentReservations } from './2026_11_26_0200_add_payment_reservations';
import { addSafetySignals } from './2026_11_26_0300_add_safety_signals';
import { addImageSafetyScores } from './2026_11_26_0400_add_image_safety_scores';
import { addOperatorClaims } from './2026_11_27_0100_add_operator_claims';
import { addParticipantsConversationIndex } from './2026_11_27_1800_add_participants_conversation_index';
import { addLikesNewIndex } from './2026_11_27_1900_add_likes_new_index';

/** Every migration, by name; names sort in the order they run. */
export function allMigrations(dialect: Dialect): Record<string, Migration> {
  return {
    '2026_11_22_0900_create_profiles': createProfiles(dialect),
    '2026_11_22_1000_create_accounts': createAccounts(dialect),
    '2026_11_22_1100_create_blocks_reports_likes': createBlocksReportsLikes(dialect),
    '2026_11_22_1200_add_profile_rank': addProfileRank,
    '2026_11_22_1300_create_swipes': createSwipes,
    '2026_11_23_1000_create_chat': createChat(dialect),
    '2026_11_23_1100_create_push': createPush(dialect),
    '2026_11_23_1200_create_payments': createPayments(dialect),
    '2026_11_23_2000_add_access_indexes': addAccessIndexes,
    '2026_11_23_2000_create_lander_funnel': createLanderFunnel,
    '2026_11_24_0100_add_search_order_indexes': addSearchOrderIndexes,
    '2026_11_24_0400_create_staff_console': createStaffConsole(dialect),
    '2026_11_25_0100_create_jobs': createJobs(dialect),
    '2026_11_25_0200_add_age_search_index': addAgeSearchIndex,
    '2026_11_26_0100_tune_profiles_autovacuum': tuneProfilesAutovacuum(dialect),
    '2026_11_26_0200_add_payment_reservations': addPaymentReservations,
    '2026_11_26_0300_add_safety_signals': addSafetySignals(dialect),
    '2026_11_26_0400_add_image_safety_scores': addImageSafetyScores,
    '2026_11_27_0100_add_operator_claims': addOperatorClaims,
    '2026_11_27_1800_add_participants_conversation_index': addParticipantsConversationIndex,
    '2026_11_27_1900_add_likes_new_index': addLikesNewIndex,
  };
}
