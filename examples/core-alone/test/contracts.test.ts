// The host's stores pass adgate's contract kit: each port's contract on the host's own store, then adgate's races
// (32 racing compare-and-set saves, token exchanges and refreshes, decisions…) on the whole world built on them.
import {
  accessTokenStoreContract, clientStoreContract, codeStoreContract, connectionStoreContract, consentStoreContract,
  everyRace, grantReaderContract, writeRequestStoreContract
} from "@adgate/contract-kit"
import { it } from "@effect/vitest"
import { hostWorld } from "../src/host.ts"
import {
  hostAccessTokenStore, hostClientStore, hostCodeStore, hostConnectionStore, hostConsentStore, hostWriteRequestStore,
  makeHostDatabase
} from "../src/hostStores.ts"

const name = "the host's database"
clientStoreContract(name, hostClientStore(makeHostDatabase()), it)
consentStoreContract(name, hostConsentStore(makeHostDatabase()), it)
codeStoreContract(name, hostCodeStore(makeHostDatabase()), it)
connectionStoreContract(name, hostConnectionStore(makeHostDatabase()), it)
accessTokenStoreContract(name, hostAccessTokenStore(makeHostDatabase()), it)
writeRequestStoreContract(name, hostWriteRequestStore(makeHostDatabase()), it)
grantReaderContract(name, hostWorld(makeHostDatabase()), it)
everyRace(name, hostWorld(makeHostDatabase()), it)
