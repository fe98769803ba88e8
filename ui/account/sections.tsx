/** The sections of the account page, in order. */
import type { FunctionComponent } from "preact";
import type { SectionProps } from "./ui.tsx";
import { CallsignsSection } from "./callsigns.tsx";
import { PasskeysSection } from "./passkeys.tsx";
import { ProfileSection } from "./profile.tsx";
import { EmailSection } from "./email.tsx";

export const ACCOUNT_SECTIONS: Array<FunctionComponent<SectionProps>> = [CallsignsSection, PasskeysSection, EmailSection, ProfileSection];
