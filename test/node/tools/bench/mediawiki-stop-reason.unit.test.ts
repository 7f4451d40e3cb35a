/**
 * How `bench store` says why importDump.php stopped: the exception line of
 * its output, not the PHP notices it prints after the stack trace (as
 * MediaWiki 1.39 did on rust-rfcs-wiki, at a contributor it cannot name).
 */
import { describe, expect, it } from "vitest";
import { stopReason } from "../../../../src/tools/bench/store/mediawiki-baseline.ts";

const EXCEPTION =
  'CannotCreateActorException from line 622 of /usr/share/mediawiki/includes/user/ActorStore.php: Cannot create an actor for a user with no name: user_id=0 user_name="Carol (Nichols || Goulding)"';

/** importDump.php's stderr as it stopped, shortened: progress, the exception, its trace, then notices. */
const OUTPUT = [
  "php /usr/share/mediawiki/maintenance/importDump.php --conf /tmp/w/LocalSettings.php /tmp/w/wiki.xml exited 1: 300 (19.15 pages/sec 73.80 revs/sec)",
  EXCEPTION,
  "#0 /usr/share/mediawiki/includes/user/ActorStore.php(400): MediaWiki\\User\\ActorStore->validateActorForInsertion()",
  "#1 /usr/share/mediawiki/includes/ActorMigrationBase.php(366): MediaWiki\\User\\ActorStore->acquireActorId()",
  "#25 {main}",
  "PHP Notice:  Uncommitted DB writes (transaction from MediaWiki\\Revision\\RevisionStore::insertRevisionOn) in /usr/share/mediawiki/includes/libs/rdbms/database/TransactionManager.php on line 583",
  "PHP Notice:  DB transaction writes or callbacks still pending (CommentStore::createComment) in /usr/share/mediawiki/includes/libs/rdbms/database/Database.php on line 3760",
  "",
].join("\n");

describe("stopReason", () => {
  it("names the exception a script stopped on, past its stack trace and the notices after it", () => {
    expect(stopReason(OUTPUT)).toBe(EXCEPTION);
  });

  it("falls back to the last line when no line names an exception or an error", () => {
    expect(stopReason("php x.php exited 255: starting\nout of memory\n\n")).toBe("out of memory");
  });
});
